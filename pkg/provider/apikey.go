package provider

import (
	"errors"
	"fmt"
)

// ErrBadAPIKey is returned for an API key no server could take: one
// holding a space, a line break or another character that is not printable
// ASCII. Sent, it fails as an HTTP header the client refuses to write
// (a line break) or as a 401 that does not say why (a space, a curly
// quote pasted with it).
var ErrBadAPIKey = errors.New("unusable API key")

// ErrNoAPIKey is returned for a provider's own endpoint without a key.
var ErrNoAPIKey = errors.New("no API key")

// CheckAPIKey says where the key of the variable name holds a character no
// API key has, without showing the key.
func CheckAPIKey(name, key string) error {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c > 0x20 && c < 0x7f {
			continue
		}
		where := fmt.Sprintf("at byte %d of %d", i+1, len(key))
		switch {
		case i == len(key)-1 || (c == '\r' && i == len(key)-2 && key[i+1] == '\n'):
			where = "at its end"
		case i == 0:
			where = "at its start"
		}
		what := "a character that is not printable ASCII"
		hint := "copy the key again"
		switch c {
		case '\n', '\r':
			what = "a line break"
			hint = "was it read from a file with its line end? remove it"
		case ' ', '\t':
			what = "a space"
			hint = "remove it"
		}
		return fmt.Errorf("%w: %s holds %s %s; an API key is one word of printable ASCII (%s)", ErrBadAPIKey, name, what, where, hint)
	}
	return nil
}

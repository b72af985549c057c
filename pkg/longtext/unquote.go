package longtext

import (
	"errors"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/jsonesc"
)

// decode decodes the body of a JSON string (what follows the opening
// quote) exactly as encoding/json does: escapes replaced, a lone or
// mismatched surrogate and each byte that is not UTF-8 turned into U+FFFD.
// It appends what it decoded to dst and returns how many bytes of b it
// used. It stops at the closing quote (used, not decoded: end is set), at
// something no JSON string holds (bad: a control character, a bad escape),
// or where the rest of b is an escape or a character cut short; atEOF says
// nothing follows b, so that such a tail is decoded as it stands.
func decode(dst, b []byte, atEOF bool) (out []byte, n int, end, bad bool) {
	i := 0
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return dst, i + 1, true, false
		case c < 0x20:
			return dst, i, false, true
		case c < utf8.RuneSelf && c != '\\':
			j := i + 1
			for j < len(b) && b[j] >= 0x20 && b[j] < utf8.RuneSelf && b[j] != '"' && b[j] != '\\' {
				j++
			}
			dst = append(dst, b[i:j]...)
			i = j
		case c == '\\':
			if i+1 >= len(b) {
				return dst, i, false, atEOF
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				if len(b)-i < 6 {
					return dst, i, false, atEOF
				}
				r := jsonesc.Hex4(b[i+2 : i+6])
				if r < 0 {
					return dst, i, false, true
				}
				if utf16.IsSurrogate(r) {
					if len(b)-i < 12 && !atEOF {
						return dst, i, false, false // the pair's second half may follow
					}
					r2 := rune(-1)
					if len(b)-i >= 12 && b[i+6] == '\\' && b[i+7] == 'u' {
						r2 = jsonesc.Hex4(b[i+8 : i+12])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						dst = utf8.AppendRune(dst, dec)
						i += 12
						continue
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				i += 6
				continue
			default:
				return dst, i, false, true
			}
			i += 2
		default:
			if !atEOF && !utf8.FullRune(b[i:]) {
				return dst, i, false, false
			}
			r, size := utf8.DecodeRune(b[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
	return dst, i, false, false
}

var errBadString = errors.New("longtext: the recorded string changed or is not JSON")

// unquoteReader reads the decoded text of a JSON string body.
type unquoteReader struct {
	src  io.Reader
	raw  []byte // read from src, not yet decoded
	buf  []byte // what out is a part of
	out  []byte // decoded, not yet returned
	eof  bool
	done bool
}

func (u *unquoteReader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.done {
			return 0, io.EOF
		}
		if u.raw == nil {
			u.raw = make([]byte, 0, readChunk+12) // room for the longest escape, a surrogate pair
		}
		if !u.eof && len(u.raw) < cap(u.raw) {
			n, err := io.ReadFull(u.src, u.raw[len(u.raw):cap(u.raw)])
			u.raw = u.raw[:len(u.raw)+n]
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				u.eof = true
			} else if err != nil {
				return 0, err
			}
		}
		out, n, end, bad := decode(u.buf[:0], u.raw, u.eof)
		if end || bad || n == 0 && u.eof && len(u.raw) > 0 {
			return 0, errBadString
		}
		u.buf, u.out = out, out
		u.raw = u.raw[:copy(u.raw, u.raw[n:])]
		if u.eof && len(u.raw) == 0 {
			u.done = true
		}
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// readChunk is how much of a text's JSON an unquoteReader reads at a time.
var readChunk = 64 << 10

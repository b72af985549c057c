// Package jsonesc reads the escapes of JSON strings, for the decoders that
// read strings without encoding/json (to keep one copy of a large text, or
// to read one a piece at a time), and writes JSON without the escapes of
// HTML characters.
package jsonesc

import (
	"bytes"
	"encoding/json"
)

// Hex4 is the value of the four hex digits b starts with, those of a \u
// escape, or -1 when b does not start with four.
func Hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// Marshal is json.Marshal without HTML escaping, so text with < > &
// reads in a transcript as the model wrote it.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

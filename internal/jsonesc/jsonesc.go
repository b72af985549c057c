// Package jsonesc reads the escapes of JSON strings, for the decoders that
// read strings without encoding/json (to keep one copy of a large text, or
// to read one a piece at a time).
package jsonesc

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

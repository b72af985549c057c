package transcript

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/jsonesc"
)

// The checker reads gigabytes of transcripts, so it does not build values:
// scanner walks a JSON document in place, validating all of it (with the
// same verdicts as encoding/json.Valid) and handing the caller only the keys
// and small strings it asks for. Nothing here allocates once the arena has
// grown to the size of the largest decoded string.

// maxDepth is encoding/json's nesting limit; matching it keeps Valid and the
// scanner in agreement.
const maxDepth = 10000

// scanError is where and why a document stopped being JSON.
type scanError struct {
	off int
	msg string
}

func (e *scanError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.off) }

// scanner is a cursor over one JSON document. After the first error every
// method is a no-op and err holds the first problem.
type scanner struct {
	d     []byte
	i     int
	depth int
	err   *scanError
	// arena holds decoded strings; it is reset by the owner between
	// documents. Decoded slices stay valid until then, because a full arena
	// is replaced, never grown in place.
	arena []byte
	errv  scanError
	// bad is 1 + the offset of the first byte of a string that is not
	// UTF-8, or of a \u escape of half a surrogate pair, met since reset
	// (0: none); badSur says which. Such a document is JSON to
	// encoding/json, which makes the text U+FFFD, but not to the APIs,
	// which refuse the body (see invalid-utf8): the scanner notes it and
	// reads on, and the checker reports it where it is.
	bad    int
	badSur bool
}

func (s *scanner) reset(d []byte) {
	s.d, s.i, s.depth, s.err = d, 0, 0, nil
	s.bad, s.badSur = 0, false
}

// noteBad records text at off that is not UTF-8 (or, sur, an unpaired
// surrogate escape), unless something earlier was.
func (s *scanner) noteBad(off int, sur bool) {
	if s.bad == 0 {
		s.bad, s.badSur = off+1, sur
	}
}

func (s *scanner) failf(off int, format string, args ...any) {
	if s.err != nil {
		return
	}
	s.errv = scanError{off: off, msg: fmt.Sprintf(format, args...)}
	s.err = &s.errv
	s.i = len(s.d)
}

func (s *scanner) unexpected() {
	if s.i >= len(s.d) {
		s.failf(s.i, "unexpected end of JSON")
		return
	}
	c := s.d[s.i]
	if c < 0x20 || c >= 0x7f {
		s.failf(s.i, "unexpected byte 0x%02x", c)
		return
	}
	s.failf(s.i, "unexpected %q", c)
}

// ws skips whitespace and returns the next byte, or 0 at the end.
func (s *scanner) ws() byte {
	for s.i < len(s.d) {
		switch c := s.d[s.i]; c {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// end checks that only whitespace is left.
func (s *scanner) end() {
	if s.ws(); s.i < len(s.d) && s.err == nil {
		s.failf(s.i, "unexpected %q after the top-level value", s.d[s.i])
	}
}

// Kinds of JSON values, from their first byte.
const (
	kindAbsent byte = iota
	kindNull
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
	kindInvalid
)

func kindOf(c byte) byte {
	switch c {
	case 'n':
		return kindNull
	case 't', 'f':
		return kindBool
	case '"':
		return kindString
	case '[':
		return kindArray
	case '{':
		return kindObject
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return kindNumber
	}
	return kindInvalid
}

func kindName(k byte) string {
	switch k {
	case kindAbsent:
		return "absent"
	case kindNull:
		return "null"
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	}
	return "not JSON"
}

// peekKind is the kind of the value at the cursor.
func (s *scanner) peekKind() byte {
	if s.err != nil {
		return kindInvalid
	}
	return kindOf(s.ws())
}

// enter consumes the opening bracket of an object or array.
func (s *scanner) enter(open byte) bool {
	if s.ws() != open || s.err != nil {
		s.unexpected()
		return false
	}
	s.depth++
	if s.depth > maxDepth {
		s.failf(s.i, "nested too deeply")
		return false
	}
	s.i++
	return true
}

// next advances to the next element of the container entered last: it
// consumes the separating comma, or the closing bracket (and returns false).
// n counts the elements seen so far and is kept by the caller.
func (s *scanner) next(close byte, n *int) bool {
	c := s.ws()
	if s.err != nil {
		return false
	}
	if c == close {
		s.i++
		s.depth--
		return false
	}
	if *n > 0 {
		if c != ',' {
			s.unexpected()
			return false
		}
		s.i++
		if s.ws() == close {
			s.unexpected()
			return false
		}
	}
	*n++
	return true
}

// key reads an object key and the colon after it. The key is decoded only
// when it holds escapes.
func (s *scanner) key() []byte {
	if s.ws() != '"' {
		s.unexpected()
		return nil
	}
	raw, esc := s.str()
	if s.ws() != ':' {
		s.unexpected()
		return nil
	}
	s.i++
	if esc {
		return s.unescape(raw)
	}
	return raw
}

// str reads a string at the cursor and returns its raw bytes (without the
// quotes) and whether it holds escapes.
func (s *scanner) str() ([]byte, bool) {
	if s.ws() != '"' {
		s.unexpected()
		return nil, false
	}
	start := s.i + 1
	i, esc := s.skipString(start)
	if s.err != nil {
		return nil, false
	}
	s.i = i + 1
	return s.d[start:i], esc
}

// text reads a string and returns it decoded.
func (s *scanner) text() []byte {
	raw, esc := s.str()
	if esc {
		return s.unescape(raw)
	}
	return raw
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special marks the bytes that end the fast path inside a string: the
// quote, the backslash, control bytes, and the bytes of multi-byte UTF-8
// sequences, which are checked a character at a time.
var special = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := utf8.RuneSelf; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// skipString scans string contents from i (just after the opening quote)
// and returns the index of the closing quote. Most bytes of a transcript are
// inside strings, so this loop is the checker's hot path: it tests eight
// bytes at a time for a special byte, and goes back to doing so after each
// (utf8.Valid would go byte by byte after the first character above 0x7f,
// three times slower on text with accents). Text that is not UTF-8, and \u
// escapes of half a surrogate pair, are noted (noteBad), not refused.
func (s *scanner) skipString(i int) (int, bool) {
	d := s.d
	esc := false
	for {
	word:
		for i+8 <= len(d) {
			v := binary.LittleEndian.Uint64(d[i:])
			q := v ^ (lsb * '"')
			b := v ^ (lsb * '\\')
			// The lowest byte flagged is exact: a borrow flags only
			// bytes above a true match.
			if m := ((q-lsb)&^q | (b-lsb)&^b | (v-lsb*0x20)&^v | v) & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break word
			}
			i += 8
		}
		if i+8 > len(d) {
			for i < len(d) && !special[d[i]] {
				i++
			}
		}
		if i >= len(d) {
			s.failf(i, "unterminated string")
			return i, esc
		}
		switch c := d[i]; {
		case c >= utf8.RuneSelf:
			i = s.skipMultiByte(i)
		case c == '"':
			return i, esc
		case c == '\\':
			esc = true
			if i+1 >= len(d) {
				s.failf(i+1, "unterminated string")
				return i, esc
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r := jsonesc.Hex4(d[i+2:])
				if r < 0 {
					s.failf(i, "invalid \\u escape in string")
					return i, esc
				}
				if utf16.IsSurrogate(r) {
					if r < 0xdc00 && i+8 <= len(d) && d[i+6] == '\\' && d[i+7] == 'u' {
						if r2 := jsonesc.Hex4(d[i+8:]); 0xdc00 <= r2 && r2 < 0xe000 {
							i += 12
							continue
						}
					}
					s.noteBad(i, true)
				}
				i += 6
			default:
				s.failf(i+1, "invalid escape %q in string", d[i+1])
				return i, esc
			}
		default:
			s.failf(i, "control byte 0x%02x in string", c)
			return i, esc
		}
	}
}

// skipMultiByte steps over the characters above 0x7f that start at i, and
// returns the index after them, noting (noteBad) a byte that is not part of
// one. Two- and three-byte characters, most of those in text, are checked
// here; the rest by utf8.DecodeRune.
func (s *scanner) skipMultiByte(i int) int {
	d := s.d
	for i < len(d) && d[i] >= utf8.RuneSelf {
		c := d[i]
		switch {
		case 0xc2 <= c && c <= 0xdf && i+1 < len(d) && d[i+1]&0xc0 == 0x80:
			i += 2
			continue
		case 0xe1 <= c && c <= 0xec, c == 0xee, c == 0xef:
			if i+2 < len(d) && d[i+1]&0xc0 == 0x80 && d[i+2]&0xc0 == 0x80 {
				i += 3
				continue
			}
		}
		if r, n := utf8.DecodeRune(d[i:]); r == utf8.RuneError && n == 1 {
			s.noteBad(i, false)
			i++
		} else {
			i += n
		}
	}
	return i
}

// hexVal is the value of a hex digit already checked.
func hexVal(c byte) rune {
	switch {
	case c <= '9':
		return rune(c - '0')
	case c >= 'a':
		return rune(c - 'a' + 10)
	}
	return rune(c - 'A' + 10)
}

// unescape decodes a string already checked by skipString, as encoding/json
// would: lone surrogates become U+FFFD.
func (s *scanner) unescape(raw []byte) []byte {
	if cap(s.arena)-len(s.arena) < len(raw) {
		s.arena = make([]byte, 0, max(2*cap(s.arena), len(raw)+4096))
	}
	start := len(s.arena)
	s.arena = appendUnescaped(s.arena, raw)
	return s.arena[start:len(s.arena):len(s.arena)]
}

// appendUnescaped appends the contents of a string scanned valid (its
// escapes well formed) with its escapes decoded; a lone surrogate decodes
// to U+FFFD, as in encoding/json. What lies between escapes is copied a
// run at a time.
func appendUnescaped(out, raw []byte) []byte {
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\\')
		if j < 0 {
			return append(out, raw[i:]...)
		}
		out = append(out, raw[i:i+j]...)
		i += j
		switch raw[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := jsonesc.Hex4(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if r2 := utf16.DecodeRune(r, jsonesc.Hex4(raw[i+2:])); r2 != utf8.RuneError {
						r = r2
						i += 6
						out = utf8.AppendRune(out, r)
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return out
}

// skip validates and steps over one value of any kind.
func (s *scanner) skip() {
	switch s.ws() {
	case '"':
		s.str()
	case '{':
		if !s.enter('{') {
			return
		}
		for n := 0; s.next('}', &n); {
			s.key()
			s.skip()
		}
	case '[':
		if !s.enter('[') {
			return
		}
		for n := 0; s.next(']', &n); {
			s.skip()
		}
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.number()
	}
}

// skipRaw steps over one value and returns its bytes.
func (s *scanner) skipRaw() []byte {
	s.ws()
	start := s.i
	s.skip()
	if s.err != nil {
		return nil
	}
	return s.d[start:s.i]
}

func (s *scanner) literal(lit string) {
	if len(s.d)-s.i < len(lit) || string(s.d[s.i:s.i+len(lit)]) != lit {
		for j := 0; j < len(lit); j++ {
			if s.i+j >= len(s.d) || s.d[s.i+j] != lit[j] {
				s.i += j
				s.unexpected()
				return
			}
		}
	}
	s.i += len(lit)
}

func (s *scanner) number() {
	d, i := s.d, s.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i++; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
		}
	default:
		s.i = i
		s.unexpected()
		return
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.i = i
			s.unexpected()
			return
		}
		for ; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.i = i
			s.unexpected()
			return
		}
		for ; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
		}
	}
	s.i = i
}

// valid reports whether d is one JSON document, as encoding/json.Valid does.
func valid(d []byte) bool {
	var s scanner
	s.reset(d)
	s.skip()
	s.end()
	return s.err == nil
}

// isBlank reports whether raw string contents (escapes not yet decoded) hold
// only whitespace, the test the Messages API applies to text blocks.
// Whitespace is space, tab, newline and carriage return, however written:
// "\u0020" is as blank as " ".
func isBlank(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '\\':
			// The scanner has checked the escapes: \u has four hex digits.
			if i+1 < len(raw) {
				switch raw[i+1] {
				case 'n', 't', 'r':
					i++
					continue
				case 'u':
					if i+5 < len(raw) && raw[i+2] == '0' && raw[i+3] == '0' {
						switch hexVal(raw[i+4])<<4 | hexVal(raw[i+5]) {
						case ' ', '\t', '\n', '\r':
							i += 5
							continue
						}
					}
				}
			}
		}
		return false
	}
	return true
}

// badTextMessage says what is wrong with the text at at, which the scanner
// noted (noteBad): a byte that is not UTF-8, or an escape of half a
// surrogate pair.
func badTextMessage(at []byte, sur bool) string {
	if sur && len(at) >= 6 {
		msg := fmt.Sprintf("a string holds %s, half of a UTF-16 surrogate pair with no other half: the API refuses the body as not JSON", at[:6])
		if r := jsonesc.Hex4(at[2:]); r < 0xdc00 {
			msg += ` ("no low surrogate in string")`
		}
		return msg
	}
	if len(at) == 0 {
		return "a string holds bytes that are not UTF-8: the API refuses the body as not JSON"
	}
	return fmt.Sprintf("a string holds byte 0x%02x, which is not UTF-8 there: the API refuses the body as not JSON", at[0])
}

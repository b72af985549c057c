// Package jsonscan reads JSON in place, for the checker and the quick
// record decoders of pkg/transcript: they read gigabytes of transcripts, so
// nothing builds values. A Scanner walks one document, validating all of it
// (with the same verdicts as encoding/json.Valid) and handing the caller
// only the keys and small strings it asks for. Nothing here allocates once
// the arena has grown to the size of the largest decoded string.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/jsonesc"
)

// maxDepth is encoding/json's nesting limit; matching it keeps Valid and the
// scanner in agreement.
const maxDepth = 10000

// Error is where and why a document stopped being JSON.
type Error struct {
	// Off is the offset in the document of the byte that broke it.
	Off int
	// Msg says what is wrong: "unexpected end of JSON".
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Off) }

// Scanner is a cursor over one JSON document. After the first error every
// method is a no-op and Err returns the first problem.
type Scanner struct {
	d     []byte
	i     int
	depth int
	err   *Error
	// arena holds decoded strings; it is reset by the owner between
	// documents. Decoded slices stay valid until then, because a full arena
	// is replaced, never grown in place.
	arena []byte
	errv  Error
	// bad is 1 + the offset of the first byte of a string that is not
	// UTF-8, or of a \u escape of half a surrogate pair, met since reset
	// (0: none); badSur says which. Such a document is JSON to
	// encoding/json, which makes the text U+FFFD, but not to the APIs,
	// which refuse the body (see invalid-utf8): the scanner notes it and
	// reads on, and the checker reports it where it is.
	bad    int
	badSur bool
}

// Reset starts reading document d. The arena is kept: its owner resets it
// (ResetArena) when the strings decoded from earlier documents are no
// longer needed.
func (s *Scanner) Reset(d []byte) {
	s.d, s.i, s.depth, s.err = d, 0, 0, nil
	s.bad, s.badSur = 0, false
}

// Err is the first problem met since Reset, nil while the document reads
// as JSON.
func (s *Scanner) Err() *Error { return s.err }

// Data is the document being read.
func (s *Scanner) Data() []byte { return s.d }

// Pos is the offset of the cursor in the document.
func (s *Scanner) Pos() int { return s.i }

// ResetArena lets the strings decoded so far be overwritten.
func (s *Scanner) ResetArena() { s.arena = s.arena[:0] }

// Stop ends the reading of the document with an error saying msg, unless it
// has one already: every method is a no-op after it.
func (s *Scanner) Stop(msg string) { s.failf(s.i, "%s", msg) }

// Bool reads the value at the cursor, of any kind, and reports whether it
// is true.
func (s *Scanner) Bool() bool {
	t := s.PeekKind() == Bool && s.d[s.i] == 't'
	s.Skip()
	return t
}

// BadText reports the first string byte met since Reset (or ClearBadText)
// that is not UTF-8, or the first \u escape of half a surrogate pair (sur):
// off is its offset, -1 when there is none.
func (s *Scanner) BadText() (off int, sur bool) { return s.bad - 1, s.badSur }

// SetBadText replaces what BadText reports: off -1 for nothing.
func (s *Scanner) SetBadText(off int, sur bool) { s.bad, s.badSur = off+1, sur }

// RawKey reads an object key and the colon after it, and returns its raw
// bytes, escapes not decoded, and whether it holds any.
func (s *Scanner) RawKey() ([]byte, bool) {
	if s.ws() != '"' {
		s.unexpected()
		return nil, false
	}
	raw, esc := s.Str()
	if s.ws() != ':' {
		s.unexpected()
		return nil, false
	}
	s.i++
	return raw, esc
}

// noteBad records text at off that is not UTF-8 (or, sur, an unpaired
// surrogate escape), unless something earlier was.
func (s *Scanner) noteBad(off int, sur bool) {
	if s.bad == 0 {
		s.bad, s.badSur = off+1, sur
	}
}

func (s *Scanner) failf(off int, format string, args ...any) {
	if s.err != nil {
		return
	}
	s.errv = Error{Off: off, Msg: fmt.Sprintf(format, args...)}
	s.err = &s.errv
	s.i = len(s.d)
}

func (s *Scanner) unexpected() {
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
func (s *Scanner) ws() byte {
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

// End checks that only whitespace is left.
func (s *Scanner) End() {
	if s.ws(); s.i < len(s.d) && s.err == nil {
		s.failf(s.i, "unexpected %q after the top-level value", s.d[s.i])
	}
}

// Kinds of JSON values, from their first byte. Absent is the kind of a key
// not there; Invalid of bytes that start no value.
const (
	Absent byte = iota
	Null
	Bool
	Number
	String
	Array
	Object
	Invalid
)

// KindOf is the kind of the value that starts with c.
func KindOf(c byte) byte {
	switch c {
	case 'n':
		return Null
	case 't', 'f':
		return Bool
	case '"':
		return String
	case '[':
		return Array
	case '{':
		return Object
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return Number
	}
	return Invalid
}

// KindName names a kind in a sentence: "an object", "null".
func KindName(k byte) string {
	switch k {
	case Absent:
		return "absent"
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	case Object:
		return "an object"
	}
	return "not JSON"
}

// PeekKind is the kind of the value at the cursor.
func (s *Scanner) PeekKind() byte {
	if s.err != nil {
		return Invalid
	}
	return KindOf(s.ws())
}

// Enter consumes the opening bracket of an object or array.
func (s *Scanner) Enter(open byte) bool {
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

// Next advances to the next element of the container entered last: it
// consumes the separating comma, or the closing bracket (and returns false).
// n counts the elements seen so far and is kept by the caller.
func (s *Scanner) Next(close byte, n *int) bool {
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

// Key reads an object key and the colon after it. The key is decoded only
// when it holds escapes.
func (s *Scanner) Key() []byte {
	if s.ws() != '"' {
		s.unexpected()
		return nil
	}
	raw, esc := s.Str()
	if s.ws() != ':' {
		s.unexpected()
		return nil
	}
	s.i++
	if esc {
		return s.Unescape(raw)
	}
	return raw
}

// Str reads a string at the cursor and returns its raw bytes (without the
// quotes) and whether it holds escapes.
func (s *Scanner) Str() ([]byte, bool) {
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

// Text reads a string and returns it decoded.
func (s *Scanner) Text() []byte {
	raw, esc := s.Str()
	if esc {
		return s.Unescape(raw)
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
func (s *Scanner) skipString(i int) (int, bool) {
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
func (s *Scanner) skipMultiByte(i int) int {
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

// Unescape decodes a string already checked by skipString, as encoding/json
// would: lone surrogates become U+FFFD.
func (s *Scanner) Unescape(raw []byte) []byte {
	if cap(s.arena)-len(s.arena) < len(raw) {
		s.arena = make([]byte, 0, max(2*cap(s.arena), len(raw)+4096))
	}
	start := len(s.arena)
	s.arena = AppendUnescaped(s.arena, raw)
	return s.arena[start:len(s.arena):len(s.arena)]
}

// AppendUnescaped appends the contents of a string scanned valid (its
// escapes well formed) with its escapes decoded; a lone surrogate decodes
// to U+FFFD, as in encoding/json. What lies between escapes is copied a
// run at a time.
func AppendUnescaped(out, raw []byte) []byte {
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

// Skip validates and steps over one value of any kind.
func (s *Scanner) Skip() {
	switch s.ws() {
	case '"':
		s.Str()
	case '{':
		if !s.Enter('{') {
			return
		}
		for n := 0; s.Next('}', &n); {
			s.Key()
			s.Skip()
		}
	case '[':
		if !s.Enter('[') {
			return
		}
		for n := 0; s.Next(']', &n); {
			s.Skip()
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

// SkipRaw steps over one value and returns its bytes.
func (s *Scanner) SkipRaw() []byte {
	s.ws()
	start := s.i
	s.Skip()
	if s.err != nil {
		return nil
	}
	return s.d[start:s.i]
}

func (s *Scanner) literal(lit string) {
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

// Number steps over a number and returns its bytes.
func (s *Scanner) Number() []byte {
	start := s.i
	s.number()
	if s.err != nil {
		return nil
	}
	return s.d[start:s.i]
}

func (s *Scanner) number() {
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

// Valid reports whether d is one JSON document, as encoding/json.Valid does.
func Valid(d []byte) bool {
	var s Scanner
	s.Reset(d)
	s.Skip()
	s.End()
	return s.err == nil
}

// IsBlank reports whether raw string contents (escapes not yet decoded) hold
// only whitespace, the test the Messages API applies to text blocks.
// Whitespace is space, tab, newline and carriage return, however written:
// "\u0020" is as blank as " ".
func IsBlank(raw []byte) bool {
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

// BadTextMessage says what is wrong with the text at at, which the scanner
// noted (BadText): a byte that is not UTF-8, or an escape of half a
// surrogate pair.
func BadTextMessage(at []byte, sur bool) string {
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

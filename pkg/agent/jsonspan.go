package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// A small reader of JSON text that finds where values are, so that one
// value of a stored wire message (a tool result's content) can be replaced
// with every other byte left as it was: the message is neither decoded nor
// encoded again.

var errBadJSON = errors.New("not valid JSON")

// span is the byte range of a value in a message.
type span struct{ start, end int }

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, errBadJSON
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errBadJSON
	}
	// A number, true, false or null.
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	if j == i {
		return 0, errBadJSON
	}
	return j, nil
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errBadJSON
}

// objectFields calls fn with the raw key (quotes included) and the span of
// the value of each member of the object that starts at b[i], until fn
// returns false.
func objectFields(b []byte, i int, fn func(key []byte, v span) bool) error {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return errBadJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return errBadJSON
		}
		kEnd, err := skipString(b, i)
		if err != nil {
			return err
		}
		key := b[i:kEnd]
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return errBadJSON
		}
		vStart := skipSpace(b, i+1)
		vEnd, err := skipValue(b, vStart)
		if err != nil {
			return err
		}
		if !fn(key, span{vStart, vEnd}) {
			return nil
		}
		i = skipSpace(b, vEnd)
		if i >= len(b) {
			return errBadJSON
		}
		if b[i] == '}' {
			return nil
		}
		if b[i] != ',' {
			return errBadJSON
		}
		i++
	}
}

// arrayElems calls fn with the span of each element of the array that
// starts at b[i].
func arrayElems(b []byte, i int, fn func(v span)) error {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return errBadJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		start := skipSpace(b, i)
		end, err := skipValue(b, start)
		if err != nil {
			return err
		}
		fn(span{start, end})
		i = skipSpace(b, end)
		if i >= len(b) {
			return errBadJSON
		}
		if b[i] == ']' {
			return nil
		}
		if b[i] != ',' {
			return errBadJSON
		}
		i++
	}
}

// stringValue reads a JSON string without escapes (ids, types); ok is false
// for anything else.
func stringValue(b []byte, v span) (string, bool) {
	s := b[v.start:v.end]
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	for _, c := range s[1 : len(s)-1] {
		if c == '\\' {
			return "", false
		}
	}
	return string(s[1 : len(s)-1]), true
}

// spliceValues returns b with the value at each span replaced, spans in
// order and not overlapping.
func spliceValues(b []byte, spans []span, with [][]byte) ([]byte, error) {
	size := len(b)
	for k, s := range spans {
		if s.start < 0 || s.end > len(b) || s.start > s.end || (k > 0 && s.start < spans[k-1].end) {
			return nil, fmt.Errorf("bad span %d–%d", s.start, s.end)
		}
		size += len(with[k]) - (s.end - s.start)
	}
	out := make([]byte, 0, size)
	prev := 0
	for k, s := range spans {
		out = append(out, b[prev:s.start]...)
		out = append(out, with[k]...)
		prev = s.end
	}
	return append(out, b[prev:]...), nil
}

// quoteJSON writes s as a JSON string, without HTML escaping.
func quoteJSON(s string) []byte {
	b, _ := marshalNoEscape(s)
	return b
}

// unquote reads a JSON string, escapes and all.
func unquote(raw []byte) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// messageRole is the "role" member of a message object, as
// json.Unmarshal into a struct with a Role string field reads it. It is
// asked of every message a run adds, a tool message holding a whole
// result, so the plain case (the key as is, a string without escapes) is
// read by skipping over the other members rather than decoding them; any
// other spelling (an escaped or differently cased key, an escaped value
// or one not UTF-8,
// a value not a string, text that does not scan) is left to
// encoding/json.
func messageRole(msg []byte) string {
	role, plain := "", true
	err := objectFields(msg, 0, func(key []byte, v span) bool {
		val := msg[v.start:v.end]
		switch {
		case string(key) == `"role"`:
			if len(val) < 2 || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 || !utf8.Valid(val) {
				plain = false
				return false
			}
			role = string(val[1 : len(val)-1])
		case bytes.IndexByte(key, '\\') >= 0 || bytes.EqualFold(key, []byte(`"role"`)):
			plain = false
			return false
		}
		return true
	})
	if err == nil && plain {
		return role
	}
	var m struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(msg, &m)
	return m.Role
}

package answerschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// node is a JSON value that keeps its objects' members in the order they
// were written, and its scalars as they were written. A schema is rewritten
// for the wire in this form: the order of "properties" is the order of the
// keys in a strict answer, and an enum's numbers must not pass through a
// float64.
type node struct {
	kind    byte // '{' object, '[' array, 0 a scalar
	members []member
	items   []*node
	lit     json.RawMessage // a scalar as JSON: "text", 12.50, true, null
}

type member struct {
	key string
	val *node
}

// maxNesting bounds how deep a schema document may nest: the decoder's
// stack, and every walk over the tree, stay small whatever the file holds.
const maxNesting = 200

// decodeTree reads one JSON value; err is a *syntaxError with the offset.
func decodeTree(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, 0)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			se.offset = faultAt(data, se)
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &syntaxError{msg: "text after the JSON value", offset: dec.InputOffset(), trailing: true}
	}
	return n, nil
}

// syntaxError is JSON that could not be read, at a byte offset.
type syntaxError struct {
	msg    string
	offset int64
	// trailing says that a whole value was read, and more text follows;
	// atEnd that the text ended in the middle of one.
	trailing, atEnd bool
}

func (e *syntaxError) Error() string { return e.msg }

func readNode(dec *json.Decoder, depth int) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, tokenError(dec, err)
	}
	if depth > maxNesting {
		return nil, &syntaxError{msg: fmt.Sprintf("nested more than %d levels deep", maxNesting), offset: dec.InputOffset()}
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: '{'}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, tokenError(dec, err)
				}
				key, _ := kt.(string)
				if seen[key] {
					return nil, &syntaxError{msg: fmt.Sprintf("the key %q is given twice", key), offset: dec.InputOffset()}
				}
				seen[key] = true
				v, err := readNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{key, v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, tokenError(dec, err)
			}
			return n, nil
		case '[':
			n := &node{kind: '['}
			for dec.More() {
				v, err := readNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, tokenError(dec, err)
			}
			return n, nil
		}
		return nil, &syntaxError{msg: fmt.Sprintf("unexpected %q", t), offset: dec.InputOffset()}
	case json.Number:
		return &node{lit: json.RawMessage(t)}, nil
	default:
		b, _ := json.Marshal(t)
		return &node{lit: b}, nil
	}
}

// faultAt is the offset of the byte an error is about. The decoder gives
// the offset of the character it names, or the one just past it: which,
// the character says.
func faultAt(data []byte, se *syntaxError) int64 {
	if se.atEnd {
		return int64(len(data))
	}
	rest, ok := strings.CutPrefix(se.msg, "invalid character '")
	end := strings.Index(rest, "' ")
	if !ok || end < 0 || se.offset <= 0 || se.offset > int64(len(data)) {
		return se.offset
	}
	c := rest[:end]
	if c == `\'` {
		c = "'"
	} else if u, err := strconv.Unquote(`"` + c + `"`); err == nil {
		c = u
	}
	if c != "" && data[se.offset-1] == c[0] {
		return se.offset - 1
	}
	return se.offset
}

// tokenError gives a decoder's error the offset it happened at.
func tokenError(dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &syntaxError{msg: strings.TrimPrefix(se.Error(), "json: "), offset: se.Offset}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &syntaxError{msg: "the JSON ends too early", atEnd: true}
	}
	return &syntaxError{msg: err.Error(), offset: dec.InputOffset()}
}

// get is the value of an object's member, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// set replaces an object's member, or adds it at the end.
func (n *node) set(key string, v *node) {
	for i, m := range n.members {
		if m.key == key {
			n.members[i].val = v
			return
		}
	}
	n.members = append(n.members, member{key, v})
}

// del removes an object's member.
func (n *node) del(key string) {
	for i, m := range n.members {
		if m.key == key {
			n.members = append(n.members[:i], n.members[i+1:]...)
			return
		}
	}
}

// str is the string a scalar holds, and whether it is one.
func (n *node) str() (string, bool) {
	if n == nil || n.kind != 0 || len(n.lit) == 0 || n.lit[0] != '"' {
		return "", false
	}
	var s string
	err := json.Unmarshal(n.lit, &s)
	return s, err == nil
}

func (n *node) isNull() bool  { return n != nil && n.kind == 0 && string(n.lit) == "null" }
func (n *node) isTrue() bool  { return n != nil && n.kind == 0 && string(n.lit) == "true" }
func (n *node) isFalse() bool { return n != nil && n.kind == 0 && string(n.lit) == "false" }

func strNode(s string) *node {
	b, _ := json.Marshal(s)
	return &node{lit: b}
}

func boolNode(b bool) *node { return &node{lit: json.RawMessage(strconv.FormatBool(b))} }

func nullNode() *node { return &node{lit: json.RawMessage("null")} }

// clone is a deep copy.
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := &node{kind: n.kind, lit: n.lit}
	for _, m := range n.members {
		c.members = append(c.members, member{m.key, m.val.clone()})
	}
	for _, it := range n.items {
		c.items = append(c.items, it.clone())
	}
	return c
}

// encode writes the value as compact JSON, members in order.
func (n *node) encode(b *bytes.Buffer) {
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.key)
			b.WriteByte(':')
			m.val.encode(b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.encode(b)
		}
		b.WriteByte(']')
	default:
		if n.lit[0] == '"' {
			s, _ := n.str()
			writeString(b, s)
			return
		}
		b.Write(n.lit)
	}
}

func (n *node) bytes() []byte {
	var b bytes.Buffer
	n.encode(&b)
	return b.Bytes()
}

// writeString writes s as a JSON string, "<" and "&" as they are.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // the encoder's newline
}

// offsetOf is the byte offset in data of the value at a JSON pointer, as
// near as the decoder tells (the end of its key, for a member), or -1.
func offsetOf(data []byte, pointer string) int64 {
	var want []string
	if pointer != "" {
		for _, tok := range strings.Split(pointer[1:], "/") {
			want = append(want, strings.NewReplacer("~1", "/", "~0", "~").Replace(tok))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	at := int64(0)
	for depth := 0; ; depth++ {
		if depth == len(want) {
			// To the value itself, past the ':' or ',' before it.
			for at < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[at]) >= 0 {
				at++
			}
			return at
		}
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return -1
		}
		found := false
		switch d {
		case '{':
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return -1
				}
				if kt == want[depth] {
					at, found = dec.InputOffset(), true
					break
				}
				if skipValue(dec) != nil {
					return -1
				}
			}
		case '[':
			idx, err := strconv.Atoi(want[depth])
			if err != nil {
				return -1
			}
			for i := 0; dec.More(); i++ {
				if i == idx {
					at, found = dec.InputOffset(), true
					break
				}
				if skipValue(dec) != nil {
					return -1
				}
			}
		}
		if !found {
			return -1
		}
	}
}

// skipValue reads past one value.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

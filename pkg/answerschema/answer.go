package answerschema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/schemacheck"
)

// Answer is a final answer read as JSON and checked against the schema.
type Answer struct {
	// JSON is the answer's value as compact JSON on one line, its members
	// in the order the model wrote them and its numbers as written (bytes
	// that are not UTF-8 read as U+FFFD, as a JSON reader reads them). What
	// of it may reach a terminal as it is, the printer decides, as for any
	// JSON. Nil when the text is not one JSON value.
	JSON []byte
	// Problems is what does not match, each at its JSON pointer ("" for
	// the whole answer); none when the answer matches.
	Problems []Problem
	// More says that problems past those listed were left out.
	More bool
}

// Problem is one thing wrong with an answer: where, as a JSON pointer into
// it ("" for the whole answer), and what.
type Problem struct {
	At      string
	Message string
}

func (p Problem) String() string {
	if p.At == "" {
		return p.Message
	}
	return p.At + ": " + p.Message
}

// OK reports whether the answer matches the schema.
func (a *Answer) OK() bool { return len(a.Problems) == 0 }

// Feedback is what the model is told when its answer does not match: what
// is wrong, each problem on a line, and to answer again.
func (a *Answer) Feedback() string {
	var b strings.Builder
	b.WriteString("Your answer did not match the JSON schema it must follow:\n")
	for _, p := range a.Problems {
		b.WriteString("- " + p.String() + "\n")
	}
	if a.More {
		b.WriteString("- " + schemacheck.MoreText + "\n")
	}
	b.WriteString("Answer again with the JSON value alone, matching the schema.")
	return b.String()
}

// Check reads a final answer's text as one JSON value and checks it
// against the schema. The text must be the value alone (white space around
// it aside): a value in a ``` fence, or with prose before or after it, is a
// problem the model is told of, not something guessed at.
//
// strict says that the schema was sent in OpenAI's strict form, in which
// every property is required and the optional ones were made nullable: a
// null where the schema has an optional property that takes no null then
// means "not given", and is dropped before the check and from JSON.
func (s *Schema) Check(text string, strict bool) *Answer {
	tree, p := readAnswer(text)
	if p != nil {
		return &Answer{Problems: []Problem{*p}}
	}
	if strict {
		s.dropNulls(s.tree, tree, 0, 0)
	}
	a := &Answer{JSON: tree.bytes()}
	doc, err := schemacheck.Decode(a.JSON)
	if err != nil {
		a.Problems = []Problem{{Message: "not JSON: " + err.Error()}}
		return a
	}
	err = s.check.Check(doc, true)
	var e *schemacheck.Error
	switch {
	case err == nil:
	case errors.As(err, &e):
		for _, p := range e.Problems {
			if p.At == "" {
				p.Message = "the answer: " + p.Message
			}
			a.Problems = append(a.Problems, Problem(p))
		}
		a.More = e.More
	default:
		a.Problems = []Problem{{Message: err.Error()}}
	}
	return a
}

// readAnswer reads the text as one JSON value, or says why it is not one
// in words that tell the model what to send instead.
func readAnswer(text string) (*node, *Problem) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, &Problem{Message: "the answer is empty: send the JSON value"}
	}
	if strings.HasPrefix(t, "```") {
		return nil, &Problem{Message: "the answer is in a ``` code fence: send the JSON value alone, without the fence"}
	}
	tree, err := decodeTree([]byte(t))
	if err == nil {
		return tree, nil
	}
	var se *syntaxError
	if !errors.As(err, &se) {
		return nil, &Problem{Message: "the answer is not JSON: " + err.Error()}
	}
	if se.trailing {
		return nil, &Problem{Message: "the answer has text after the JSON value: send the JSON value alone"}
	}
	if i := strings.IndexAny(t, "{["); i > 0 && se.offset <= int64(i)+1 {
		if _, err := decodeTree([]byte(t[i:])); err == nil || errors.As(err, &se) && se.trailing {
			return nil, &Problem{Message: "the answer has text before the JSON value: send the JSON value alone"}
		}
	}
	line, col := position(t, int(se.offset))
	return nil, &Problem{Message: fmt.Sprintf("the answer is not JSON: %s (line %d, column %d)", se.msg, line, col)}
}

// dropNulls removes from v, an answer, the nulls of the properties the
// strict form made nullable: those the schema at sch does not require and
// whose own schema takes no null. It follows the schema where the strict
// form was made: properties, items, local references, and the branches of
// allOf, anyOf and oneOf.
func (s *Schema) dropNulls(sch, v *node, depth, refs int) {
	if depth > maxNesting || refs > maxRefs {
		return
	}
	if ref, ok := sch.get("$ref").str(); ok {
		if target := s.resolve(ref); target != nil {
			s.dropNulls(target, v, depth, refs+1)
		}
	}
	if sch == nil || sch.kind != '{' {
		return
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if branches := sch.get(k); branches != nil {
			for _, b := range branches.items {
				s.dropNulls(b, v, depth, refs)
			}
		}
	}
	switch v.kind {
	case '{':
		props := sch.get("properties")
		if props == nil {
			return
		}
		required := map[string]bool{}
		if r := sch.get("required"); r != nil {
			for _, it := range r.items {
				if name, ok := it.str(); ok {
					required[name] = true
				}
			}
		}
		kept := v.members[:0]
		for _, m := range v.members {
			ps := props.get(m.key)
			if ps != nil && m.val.isNull() && !required[m.key] && !s.acceptsNull(ps, 0) {
				continue
			}
			if ps != nil {
				s.dropNulls(ps, m.val, depth+1, 0)
			}
			kept = append(kept, m)
		}
		v.members = kept
	case '[':
		if items := sch.get("items"); items != nil && items.kind == '{' {
			for _, it := range v.items {
				s.dropNulls(items, it, depth+1, 0)
			}
		}
	}
}

// maxRefs bounds the references followed without moving into the value: a
// schema that refers to itself ({"$ref": "#"}) would never end.
const maxRefs = 32

// resolve finds the part of the schema a local reference ("#",
// "#/$defs/x") points to, or nil.
func (s *Schema) resolve(ref string) *node {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	cur := s.tree
	if ptr == "" {
		return cur
	}
	if ptr[0] != '/' {
		return nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch cur.kind {
		case '{':
			cur = cur.get(tok)
		case '[':
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(cur.items) {
				return nil
			}
			cur = cur.items[i]
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	return cur
}

// acceptsNull reports whether a schema takes null, as far as its own
// keywords say: a type that includes "null", null in its enum or as its
// const, a branch of anyOf or oneOf that takes it, a reference to a schema
// that does; or no keyword that restricts the type at all.
func (s *Schema) acceptsNull(sch *node, refs int) bool {
	if sch.isTrue() {
		return true
	}
	if sch == nil || sch.kind != '{' || refs > maxRefs {
		return false
	}
	restricted := false
	if t := sch.get("type"); t != nil {
		restricted = true
		if name, ok := t.str(); ok && name == "null" {
			return true
		}
		for _, it := range t.items {
			if name, ok := it.str(); ok && name == "null" {
				return true
			}
		}
	}
	if e := sch.get("enum"); e != nil {
		restricted = true
		for _, it := range e.items {
			if it.isNull() {
				return true
			}
		}
	}
	if c := sch.get("const"); c != nil {
		restricted = true
		if c.isNull() {
			return true
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if branches := sch.get(k); branches != nil {
			restricted = true
			for _, b := range branches.items {
				if s.acceptsNull(b, refs) {
					return true
				}
			}
		}
	}
	if ref, ok := sch.get("$ref").str(); ok {
		restricted = true
		if target := s.resolve(ref); target != nil && s.acceptsNull(target, refs+1) {
			return true
		}
	}
	if all := sch.get("allOf"); all != nil {
		for _, b := range all.items {
			if !s.acceptsNull(b, refs) {
				return false
			}
		}
	}
	return !restricted
}

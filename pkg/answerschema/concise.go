package answerschema

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The concise form is llm's (simonw/llm, docs/schemas.md "Concise LLM
// schema syntax"; llm/utils.py schema_dsl): fields separated by commas, or
// by newlines when the text has one (a description may then hold commas);
// each field a name, an optional type (int, float, str, bool; str when
// none), and an optional description after a colon. Every field is
// required; the schema is an object of them, in order.
//
// What llm accepts and makes a schema of, this makes the same schema of.
// Where llm guesses, this says what is wrong and where: a type that is none
// of the four (llm makes it a string), more words than a name and a type
// before the colon (llm drops them), a name given twice (llm lists it twice
// in required, which no validator accepts).

// conciseType is the JSON Schema type a concise form's type stands for.
func conciseType(t string) (string, bool) {
	switch t {
	case "int":
		return "integer", true
	case "float":
		return "number", true
	case "bool":
		return "boolean", true
	case "str":
		return "string", true
	}
	return "", false
}

// conciseError is a mistake at a byte offset of the concise text.
type conciseError struct {
	offset int
	msg    string
}

func (e *conciseError) Error() string { return e.msg }

// parseConcise builds the schema a concise text stands for.
func parseConcise(text string) (*node, error) {
	sep := ","
	if strings.Contains(text, "\n") {
		sep = "\n"
	}
	props := &node{kind: '{'}
	required := &node{kind: '['}
	off := 0
	described := false // the field before had a description
	for _, raw := range strings.Split(text, sep) {
		start := off
		off += len(raw) + len(sep)
		field := strings.TrimSpace(raw)
		if field == "" {
			continue
		}
		at := start + strings.Index(raw, field)
		info, desc, hasDesc := strings.Cut(field, ":")
		hint := commaHint(sep, info, described)
		described = hasDesc
		words := fieldsAt(info, at)
		if len(words) == 0 {
			return nil, &conciseError{at, fmt.Sprintf("field %q has no name before ':'", field)}
		}
		name := words[0]
		if props.get(name.text) != nil {
			return nil, &conciseError{name.at, fmt.Sprintf("the field %q is given twice", name.text)}
		}
		typ := "string"
		if len(words) > 1 {
			t, ok := conciseType(words[1].text)
			if !ok {
				return nil, &conciseError{words[1].at, fmt.Sprintf("%q is not a type: the types are int, float, str and bool (str when none is given)%s", words[1].text, hint)}
			}
			typ = t
		}
		if len(words) > 2 {
			return nil, &conciseError{words[2].at, fmt.Sprintf("field %q: only a name and a type come before the ':' of a description%s", strings.TrimSpace(info), hint)}
		}
		prop := &node{kind: '{', members: []member{{"type", strNode(typ)}}}
		if d := strings.TrimSpace(desc); d != "" {
			prop.set("description", strNode(d))
		}
		props.set(name.text, prop)
		required.items = append(required.items, strNode(name.text))
	}
	return &node{kind: '{', members: []member{
		{"type", strNode("object")},
		{"properties", props},
		{"required", required},
	}}, nil
}

// commaHint says how commas work, for a field that went wrong where one
// may have been meant otherwise: in the one-field-a-line form commas
// separate nothing; in the comma form a comma ends a description (the
// field before this one had one).
func commaHint(sep, info string, described bool) string {
	switch {
	case sep == "\n" && strings.Contains(info, ","):
		return "; with the fields one a line, commas separate nothing before a ':' (put each field on a line of its own)"
	case sep == "," && described:
		return "; a comma ends a field, even in a description: to put one in a description, write the fields one a line"
	}
	return ""
}

type word struct {
	text string
	at   int
}

// fieldsAt is strings.Fields of s, with the offset of each word (s begins
// at offset base).
func fieldsAt(s string, base int) []word {
	var out []word
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, word{s[start:i], base + start})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, word{s[start:], base + start})
	}
	return out
}

// multi wraps a schema as llm's --schema-multi does (llm/utils.py
// multi_schema): an object whose "items" is a list of values of the schema.
func multi(schema *node) *node {
	return &node{kind: '{', members: []member{
		{"type", strNode("object")},
		{"properties", &node{kind: '{', members: []member{
			{"items", &node{kind: '{', members: []member{
				{"type", strNode("array")},
				{"items", schema},
			}}},
		}}},
		{"required", &node{kind: '[', items: []*node{strNode("items")}}},
	}}
}

// position is the 1-based line and column, in characters, of a byte
// offset of text.
func position(text string, offset int) (line, col int) {
	offset = min(max(offset, 0), len(text))
	before := text[:offset]
	lineStart := strings.LastIndexByte(before, '\n') + 1
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[lineStart:]) + 1
}

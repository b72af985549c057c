package schemacheck

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// The meta-schemas of JSON Schema draft 2020-12 and draft-07, as published
// at json-schema.org. A schema written by hand is checked against them, so
// that a mistake in it ("type: strng", "minimum: low") is an error where it
// was written rather than a failure of every value checked.
//
//go:embed metaschema
var metaschemaFiles embed.FS

// metaschemas are read and resolved the first time a schema document is
// checked: a run that checks none pays nothing for them.
var metaschemas = sync.OnceValues(func() (map[string]*jsonschema.Resolved, error) {
	out := map[string]*jsonschema.Resolved{}
	for id, file := range map[string]string{
		"https://json-schema.org/draft/2020-12/schema": "metaschema/draft2020-12/schema.json",
		"http://json-schema.org/draft-07/schema#":      "metaschema/draft7/schema.json",
	} {
		s, err := readMetaschema(file)
		if err != nil {
			return nil, err
		}
		rs, err := s.Resolve(&jsonschema.ResolveOptions{BaseURI: strings.TrimSuffix(id, "#"), Loader: loadMetaschema})
		if err != nil {
			return nil, fmt.Errorf("meta-schema %s: %w", id, err)
		}
		out[id] = rs
	}
	out["https://json-schema.org/draft-07/schema#"] = out["http://json-schema.org/draft-07/schema#"]
	return out, nil
})

func readMetaschema(file string) (*jsonschema.Schema, error) {
	data, err := metaschemaFiles.ReadFile(file)
	if err != nil {
		return nil, err
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("meta-schema %s: %w", file, err)
	}
	return s, nil
}

// loadMetaschema serves the vocabularies draft 2020-12 refers to.
func loadMetaschema(u *url.URL) (*jsonschema.Schema, error) {
	if name, ok := strings.CutPrefix(u.String(), "https://json-schema.org/draft/2020-12/meta/"); ok {
		return readMetaschema("metaschema/draft2020-12/meta/" + name + ".json")
	}
	return nil, fmt.Errorf("references outside the schema are not supported: %s", u)
}

// CheckDoc checks a schema document, decoded by Decode, against the
// meta-schema of its draft. The error is an *Error naming the offending
// keyword by its JSON pointer: "/properties/n/minimum: got string, want
// number".
func CheckDoc(doc map[string]any) error {
	metas, err := metaschemas()
	if err != nil {
		return err
	}
	draft, _ := doc["$schema"].(string)
	if draft == "" {
		draft = "https://json-schema.org/draft/2020-12/schema"
	}
	meta := metas[draft]
	if meta == nil {
		return fmt.Errorf("$schema %q is not supported; leave it out (draft 2020-12) or use draft-07", draft)
	}
	inst, perr := numbers(doc, "")
	if perr != nil {
		return &Error{Problems: []Problem{*perr}}
	}
	if meta.Validate(inst) == nil {
		return nil
	}
	if p, ok := locateSchemaError(meta, inst, ""); ok {
		return &Error{Problems: []Problem{p}}
	}
	return &Error{Problems: []Problem{{Message: libraryText(meta.Validate(inst))}}}
}

// locateSchemaError finds the innermost part of a schema document that is
// not a valid schema on its own, then the keyword of it at fault. Every
// part of a schema is a schema, so the parts can be checked one by one.
func locateSchemaError(meta *jsonschema.Resolved, node any, at string) (Problem, bool) {
	m, ok := node.(map[string]any)
	if !ok {
		return Problem{}, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for sub, where := range subschemas(k, m[k]) {
			if p, ok := locateSchemaError(meta, sub, at+"/"+EscapePointer(k)+where); ok {
				return p, true
			}
		}
	}
	err := meta.Validate(m)
	if err == nil {
		return Problem{}, false
	}
	for _, k := range keys {
		if kerr := meta.Validate(map[string]any{k: m[k]}); kerr != nil {
			return Problem{At: at + "/" + EscapePointer(k), Message: word(kerr, nil, m[k]) + keywordHint(k)}, true
		}
	}
	return Problem{At: at, Message: libraryText(err)}, true
}

// keywordHint says what a keyword takes, for the ones a mistake in is
// common and the meta-schema's account of is obscure.
func keywordHint(k string) string {
	switch k {
	case "type":
		return " (a type is one of array, boolean, integer, null, number, object, string, or a list of them)"
	case "required":
		return " (required is a list of property names)"
	}
	return ""
}

// Kind is how a keyword holds schemas: not at all, one, a mapping of names
// to schemas, or a list of them.
type Kind int

// The kinds of keywords.
const (
	NotSchema Kind = iota
	OneSchema
	SchemaMap
	SchemaList
)

// KeywordKind is how keyword holds schemas.
func KeywordKind(keyword string) Kind {
	switch keyword {
	case "items", "additionalItems", "additionalProperties", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return OneSchema
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
		return SchemaMap
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return SchemaList
	}
	return NotSchema
}

// subschemas yields the schemas a keyword's value holds, each with where
// it is under the keyword ("" for the value itself, "/name" or "/0").
func subschemas(keyword string, v any) func(yield func(any, string) bool) {
	return func(yield func(any, string) bool) {
		kind := KeywordKind(keyword)
		if _, ok := v.([]any); ok && keyword == "items" {
			kind = SchemaList // draft-07's tuple form
		}
		switch kind {
		case OneSchema:
			yield(v, "")
		case SchemaMap:
			m, _ := v.(map[string]any)
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				if _, isList := m[n].([]any); isList && keyword == "dependencies" {
					continue // draft-07: a list of property names
				}
				if !yield(m[n], "/"+EscapePointer(n)) {
					return
				}
			}
		case SchemaList:
			arr, _ := v.([]any)
			for i, e := range arr {
				if !yield(e, "/"+strconv.Itoa(i)) {
					return
				}
			}
		}
	}
}

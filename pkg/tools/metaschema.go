package tools

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
	"gopkg.in/yaml.v3"
)

// The meta-schemas of JSON Schema draft 2020-12 and draft-07, as published
// at json-schema.org. A schema written by hand under schema: is checked
// against them, so that a mistake in it ("type: strng", "minimum: low") is
// a load error at its line rather than a failure of every call.
//
//go:embed metaschema
var metaschemaFiles embed.FS

// metaschemas are read and resolved the first time a schema: is loaded:
// a tools folder without one pays nothing for them.
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

// checkSchemaDoc checks a schema document, decoded by decodeJSON, against
// the meta-schema of its draft. The error names the offending keyword by
// its JSON pointer: "/properties/n/minimum: got string, want number".
func checkSchemaDoc(doc map[string]any) error {
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
	inst, err := numbersForCheck(doc, "")
	if err != nil {
		return err
	}
	if meta.Validate(inst) == nil {
		return nil
	}
	if msg, ok := locateSchemaError(meta, inst, ""); ok {
		return &validationError{msgs: []string{msg}}
	}
	return &validationError{msgs: []string{"(value): " + libraryText(meta.Validate(inst))}}
}

// locateSchemaError finds the innermost part of a schema document that is
// not a valid schema on its own, then the keyword of it at fault. Every
// part of a schema is a schema, so the parts can be checked one by one.
func locateSchemaError(meta *jsonschema.Resolved, node any, at string) (string, bool) {
	m, ok := node.(map[string]any)
	if !ok {
		return "", false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for sub, where := range subschemas(k, m[k]) {
			if msg, ok := locateSchemaError(meta, sub, at+"/"+escapePointer(k)+where); ok {
				return msg, true
			}
		}
	}
	err := meta.Validate(m)
	if err == nil {
		return "", false
	}
	for _, k := range keys {
		if kerr := meta.Validate(map[string]any{k: m[k]}); kerr != nil {
			return at + "/" + escapePointer(k) + ": " + word(kerr, nil, m[k]) + keywordHint(k), true
		}
	}
	return orRoot(at) + ": " + libraryText(err), true
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

// How a keyword holds schemas: not at all, one, a mapping of names to
// schemas, or a list of them.
const (
	notSchema = iota
	oneSchema
	schemaMap
	schemaList
)

func keywordKind(keyword string) int {
	switch keyword {
	case "items", "additionalItems", "additionalProperties", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return oneSchema
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
		return schemaMap
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return schemaList
	}
	return notSchema
}

// subschemas yields the schemas a keyword's value holds, each with where
// it is under the keyword ("" for the value itself, "/name" or "/0").
func subschemas(keyword string, v any) func(yield func(any, string) bool) {
	return func(yield func(any, string) bool) {
		kind := keywordKind(keyword)
		if _, ok := v.([]any); ok && keyword == "items" {
			kind = schemaList // draft-07's tuple form
		}
		switch kind {
		case oneSchema:
			yield(v, "")
		case schemaMap:
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
				if !yield(m[n], "/"+escapePointer(n)) {
					return
				}
			}
		case schemaList:
			arr, _ := v.([]any)
			for i, e := range arr {
				if !yield(e, "/"+strconv.Itoa(i)) {
					return
				}
			}
		}
	}
}

// tooDeep returns the first schema of a schema written in YAML that is
// nested more than maxDepth levels deep (the top is level 1), or nil.
func tooDeep(n *yaml.Node, depth int) *yaml.Node {
	if depth > maxDepth {
		return n
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		var subs []*yaml.Node
		switch kind := keywordKind(k); {
		case kind == oneSchema && (v.Kind != yaml.SequenceNode || k != "items"):
			subs = []*yaml.Node{v}
		case kind == schemaMap && v.Kind == yaml.MappingNode:
			for j := 1; j < len(v.Content); j += 2 {
				subs = append(subs, v.Content[j])
			}
		case kind != notSchema && v.Kind == yaml.SequenceNode:
			subs = v.Content
		}
		for _, sub := range subs {
			if deep := tooDeep(sub, depth+1); deep != nil {
				return deep
			}
		}
	}
	return nil
}

package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// ToolDefError is a tool definition an API would refuse. The API would
// refuse the whole request, every request of the run, so it is found
// before the first.
type ToolDefError struct {
	Tool    string
	Problem string
}

func (e *ToolDefError) Error() string { return "tool " + e.Tool + ": " + e.Problem }

// validToolName: 1 to 64 letters, digits, '_' or '-', the name both APIs
// take (checked by hand: a regular expression would be compiled at every
// start of agentloop).
func validToolName(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// maxOpenAIDescription is the longest description Chat Completions takes
// ("string too long. Expected a string with maximum length 1024").
const maxOpenAIDescription = 1024

// specRules are what an API refuses in a tool definition beyond what they
// all refuse: each dialect gives its own to checkSpec.
type specRules struct {
	// maxDescription is the longest description the API takes, in
	// characters; 0 is no limit.
	maxDescription int
	// topLevelCombinators is set when the API takes oneOf, allOf or anyOf
	// at the top of an input schema.
	topLevelCombinators bool
}

// checkSpec says what an API of rules r would refuse in a tool definition,
// or "". A schema is checked for what every API refuses: a root that is
// not an object schema, a property that is not a schema.
func checkSpec(r specRules, s ToolSpec) string {
	if !validToolName(s.Name) {
		return "the name is not one the APIs take: use 1 to 64 letters, digits, '_' or '-'"
	}
	if r.maxDescription > 0 {
		if n := utf8.RuneCountInString(s.Description); n > r.maxDescription {
			return fmt.Sprintf("the description has %d characters; the OpenAI API takes at most %d", n, r.maxDescription)
		}
	}
	if len(s.Parameters) == 0 {
		return ""
	}
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(s.Parameters, &schema); err != nil || schema == nil {
		return "the input schema is not a JSON object"
	}
	var typ any
	_ = json.Unmarshal(schema["type"], &typ)
	if typ != "object" {
		what := "has no type"
		if typ != nil {
			what = "has type " + string(bytes.TrimSpace(schema["type"]))
		}
		return fmt.Sprintf(`the input schema %s; the APIs take only an object schema ("type": "object")`, what)
	}
	if !r.topLevelCombinators {
		for _, k := range []string{"oneOf", "allOf", "anyOf"} {
			if _, ok := schema[k]; ok {
				return fmt.Sprintf("the input schema has %s at the top; the Anthropic API takes no oneOf, allOf or anyOf there", k)
			}
		}
	}
	if raw, ok := schema["properties"]; ok {
		var props map[string]json.RawMessage
		if json.Unmarshal(raw, &props) != nil {
			return `the input schema's "properties" is not an object`
		}
		for name, p := range props {
			p = bytes.TrimSpace(p)
			if len(p) == 0 || (p[0] != '{' && !bytes.Equal(p, []byte("true")) && !bytes.Equal(p, []byte("false"))) {
				return fmt.Sprintf("the input schema's property %q is %s, not a schema", name, p)
			}
		}
	}
	return ""
}

// withProperties adds "properties": {} to an object schema without them:
// Chat Completions refuses such a schema ("object schema missing
// properties"), which MCP servers send for tools without arguments, and
// the two mean the same.
func withProperties(schema json.RawMessage) json.RawMessage {
	var probe struct {
		Properties json.RawMessage `json:"properties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &probe) != nil || probe.Properties != nil {
		return schema
	}
	s := bytes.TrimSpace(schema)
	if len(s) < 2 || s[len(s)-1] != '}' {
		return schema
	}
	body := bytes.TrimSpace(s[1 : len(s)-1])
	out := []byte(`{`)
	if len(body) > 0 {
		out = append(append(out, body...), ',')
	}
	return append(out, `"properties":{}}`...)
}

// anySchemas makes each "additionalProperties": {} of a schema true: Chat
// Completions refuses an empty schema there ("schema must have a 'type'
// key"), which MCP servers written with zod send for a record of anything,
// and the two mean the same. A schema without one is returned as it is.
func anySchemas(schema json.RawMessage) json.RawMessage {
	if !bytes.Contains(schema, []byte(`"additionalProperties"`)) {
		return schema
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || !rewriteEmptyAdditional(v) {
		return schema
	}
	out, err := marshalNoEscape(v)
	if err != nil {
		return schema
	}
	return out
}

// rewriteEmptyAdditional does anySchemas' work in place and reports
// whether it changed anything.
func rewriteEmptyAdditional(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if m, ok := x.(map[string]any); ok && k == "additionalProperties" && len(m) == 0 {
				v[k] = true
				changed = true
				continue
			}
			changed = rewriteEmptyAdditional(x) || changed
		}
	case []any:
		for _, x := range v {
			changed = rewriteEmptyAdditional(x) || changed
		}
	}
	return changed
}

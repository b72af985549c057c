package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Structured output as the three APIs take it, and refuse it:
//
//   - Chat Completions: response_format {type: json_schema, json_schema:
//     {name, schema, strict, description}} or {type: json_object};
//   - Responses: text.format {type: json_schema, name, schema, strict,
//     description} or {type: json_object};
//   - Messages: output_config.format {type: json_schema, schema}, or the
//     earlier output_format behind the beta header
//     structured-outputs-2025-11-13.
//
// A strict OpenAI schema and every Anthropic schema are checked as the
// APIs check them, with their 400 texts; a step's answer is held to the
// schema the request asks for, as a server that constrains the model's
// output never sends anything else. A step can also play an
// OpenAI-compatible server that refuses structured output
// (RefuseFormat).

// format is the structured output a request asks for.
type format struct {
	// kind is "", "text", "json_object" or "json_schema".
	kind   string
	name   string
	schema json.RawMessage
	strict bool
	// enforced says that the API holds the answer to the schema (OpenAI
	// strict, Anthropic) or to a JSON object (json_object).
	enforced bool
}

// StructuredBeta is the beta header of Anthropic's earlier output_format.
const StructuredBeta = "structured-outputs-2025-11-13"

// The OpenAI-compatible servers a step can play that refuse structured
// output they cannot serve, with their status and error body.
var refusals = map[string]struct {
	status int
	body   string
}{
	// llama.cpp's server before json_schema was taken: an exception
	// answered as a server error.
	"llama.cpp": {http.StatusInternalServerError, `{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}}`},
	// vLLM, for a schema its grammar backend cannot compile.
	"vllm": {http.StatusBadRequest, `{"error":{"message":"The provided JSON schema contains features not supported by xgrammar.","type":"BadRequestError","param":null,"code":400}}`},
	// Ollama's OpenAI endpoint, for a schema it cannot turn into a grammar.
	"ollama": {http.StatusInternalServerError, `{"error":{"message":"invalid JSON schema in format","type":"api_error","param":null,"code":null}}`},
}

// UnmarshalJSON reads a step as LoadScript does (unknown fields refused),
// and makes a json answer its text.
func (st *Step) UnmarshalJSON(b []byte) error {
	type plain Step
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(st)); err != nil {
		return err
	}
	if len(st.JSON) > 0 {
		if st.Text != nil {
			return fmt.Errorf("a step has text or json, not both")
		}
		var c bytes.Buffer
		if err := json.Compact(&c, st.JSON); err != nil {
			return err
		}
		t := c.String()
		st.Text = &t
	}
	if st.RefuseFormat != "" {
		if _, ok := refusals[st.RefuseFormat]; !ok {
			return fmt.Errorf("refuse_format %q: want llama.cpp, vllm or ollama", st.RefuseFormat)
		}
	}
	return nil
}

// chatFormat reads a Chat Completions response_format; the real API's
// error text and param for one it refuses.
func chatFormat(raw json.RawMessage, msgs []json.RawMessage) (format, string, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return format{}, "", ""
	}
	var rf struct {
		Type       *string `json:"type"`
		JSONSchema *struct {
			Name   *string         `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict *bool           `json:"strict"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return format{}, "Invalid type for 'response_format': expected an object, but got something else instead.", "response_format"
	}
	if rf.Type == nil {
		return format{}, "Missing required parameter: 'response_format.type'.", "response_format.type"
	}
	f := format{kind: *rf.Type}
	switch f.kind {
	case "text":
		return f, "", ""
	case "json_object":
		f.enforced = true
		if !mentionsJSON(msgs) {
			return f, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "messages"
		}
		return f, "", ""
	case "json_schema":
	default:
		return f, fmt.Sprintf("Invalid value: '%s'. Supported values are: 'text', 'json_object', and 'json_schema'.", f.kind), "response_format.type"
	}
	if rf.JSONSchema == nil {
		return f, "Missing required parameter: 'response_format.json_schema'.", "response_format.json_schema"
	}
	js := rf.JSONSchema
	if js.Name == nil {
		return f, "Missing required parameter: 'response_format.json_schema.name'.", "response_format.json_schema.name"
	}
	if msg := checkFormatName(*js.Name, "response_format.json_schema.name"); msg != "" {
		return f, msg, "response_format.json_schema.name"
	}
	f.name, f.schema = *js.Name, js.Schema
	f.strict = js.Strict != nil && *js.Strict
	f.enforced = f.strict
	if f.strict {
		if msg := checkStrictSchema(js.Schema); msg != "" {
			return f, fmt.Sprintf("Invalid schema for response_format '%s': %s", f.name, msg), "response_format"
		}
	}
	return f, "", ""
}

// responsesFormat reads a Responses text.format.
func responsesFormat(text json.RawMessage, input []json.RawMessage) (format, *grammarError) {
	if len(text) == 0 || string(text) == "null" {
		return format{}, nil
	}
	var t struct {
		Format *struct {
			Type   *string         `json:"type"`
			Name   *string         `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict *bool           `json:"strict"`
		} `json:"format"`
	}
	if err := json.Unmarshal(text, &t); err != nil {
		return format{}, &grammarError{msg: "Invalid type for 'text': expected an object, but got something else instead.", param: "text"}
	}
	if t.Format == nil {
		return format{}, nil
	}
	if t.Format.Type == nil {
		return format{}, &grammarError{msg: "Missing required parameter: 'text.format.type'.", param: "text.format.type"}
	}
	f := format{kind: *t.Format.Type}
	switch f.kind {
	case "text":
		return f, nil
	case "json_object":
		f.enforced = true
		if !mentionsJSON(inputMessages(input)) {
			return f, &grammarError{msg: "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.", param: "text.format"}
		}
		return f, nil
	case "json_schema":
	default:
		return f, &grammarError{msg: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'text', 'json_object', and 'json_schema'.", f.kind), param: "text.format.type"}
	}
	if t.Format.Name == nil {
		return f, &grammarError{msg: "Missing required parameter: 'text.format.name'.", param: "text.format.name"}
	}
	if msg := checkFormatName(*t.Format.Name, "text.format.name"); msg != "" {
		return f, &grammarError{msg: msg, param: "text.format.name"}
	}
	if len(t.Format.Schema) == 0 || string(t.Format.Schema) == "null" {
		return f, &grammarError{msg: "Missing required parameter: 'text.format.schema'.", param: "text.format.schema"}
	}
	f.name, f.schema = *t.Format.Name, t.Format.Schema
	f.strict = t.Format.Strict != nil && *t.Format.Strict
	f.enforced = f.strict
	if f.strict {
		if msg := checkStrictSchema(f.schema); msg != "" {
			return f, &grammarError{msg: fmt.Sprintf("Invalid schema for response_format '%s': %s", f.name, msg), param: "text.format.schema", code: "invalid_json_schema"}
		}
	}
	return f, nil
}

// inputMessages are the message items of a Responses input: the ones the
// word "json" must be in (the instructions do not count).
func inputMessages(items []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, raw := range items {
		var it respInItem
		if json.Unmarshal(raw, &it) == nil && it.kind() == "message" {
			out = append(out, raw)
		}
	}
	return out
}

// anthropicFormat reads a Messages output_config.format, or output_format
// with its beta header.
func anthropicFormat(r *http.Request, outputConfig, outputFormat json.RawMessage) (format, string) {
	param := "output_config.format"
	var raw json.RawMessage
	if len(outputConfig) > 0 && string(outputConfig) != "null" {
		var oc struct {
			Format json.RawMessage `json:"format"`
		}
		if err := json.Unmarshal(outputConfig, &oc); err != nil {
			return format{}, "output_config: Input should be a valid dictionary or object to extract fields from"
		}
		raw = oc.Format
	}
	if len(outputFormat) > 0 && string(outputFormat) != "null" {
		if !strings.Contains(r.Header.Get("Anthropic-Beta"), StructuredBeta) {
			return format{}, "output_format: Extra inputs are not permitted"
		}
		raw, param = outputFormat, "output_format"
	}
	if len(raw) == 0 || string(raw) == "null" {
		return format{}, ""
	}
	var f struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return format{}, param + ": Input should be a valid dictionary or object to extract fields from"
	}
	if f.Type != "json_schema" {
		return format{}, param + ".type: Input should be 'json_schema'"
	}
	if len(f.Schema) == 0 || string(f.Schema) == "null" {
		return format{}, param + ".schema: Field required"
	}
	if msg := checkAnthropicSchema(f.Schema); msg != "" {
		return format{}, param + ".schema: " + msg
	}
	return format{kind: "json_schema", schema: f.Schema, enforced: true}, ""
}

// checkFormatName holds a response format's name to ^[a-zA-Z0-9_-]+$ and
// 64 characters, with the API's texts.
func checkFormatName(name, param string) string {
	if len(name) > 64 {
		return fmt.Sprintf("Invalid '%s': string too long. Expected a string with maximum length 64, but got a string with length %d instead.", param, len(name))
	}
	ok := name != ""
	for _, r := range name {
		ok = ok && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
	}
	if !ok {
		return fmt.Sprintf("Invalid '%s': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param)
	}
	return ""
}

// mentionsJSON reports whether the word json is in a message, as JSON
// mode requires.
func mentionsJSON(msgs []json.RawMessage) bool {
	for _, m := range msgs {
		var v struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &v) == nil && strings.Contains(strings.ToLower(string(v.Content)), "json") {
			return true
		}
	}
	return false
}

// CheckStrictSchema applies OpenAI's strict mode to a schema sent under
// name, and returns the real API's error for the first violation.
func CheckStrictSchema(name string, schema json.RawMessage) error {
	if msg := checkStrictSchema(schema); msg != "" {
		return fmt.Errorf("%s", "Invalid schema for response_format '"+name+"': "+msg)
	}
	return nil
}

// CheckAnthropicSchema applies the documented limits of Anthropic's
// structured outputs to a schema, and returns the real API's error for the
// first violation.
func CheckAnthropicSchema(schema json.RawMessage) error {
	if msg := checkAnthropicSchema(schema); msg != "" {
		return fmt.Errorf("output_config.format.schema: %s", msg)
	}
	return nil
}

// strictNotPermitted are the keywords OpenAI's strict mode refuses, each
// answered "'k' is not permitted.".
var strictNotPermitted = []string{
	"allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
	"patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "prefixItems",
	"contains", "minContains", "maxContains", "uniqueItems", "minProperties", "maxProperties",
	"minLength", "maxLength",
}

// checkStrictSchema applies the rules of OpenAI's strict mode to a schema
// and returns the text of the first violation after "Invalid schema for
// response_format 'NAME': ", or "".
func checkStrictSchema(schema json.RawMessage) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"None\"'."
	}
	typ := "None"
	if t, ok := top["type"]; ok {
		var s string
		if json.Unmarshal(t, &s) == nil {
			typ = s
		}
	}
	if typ != "object" {
		return fmt.Sprintf("schema must be a JSON Schema of 'type: \"object\"', got 'type: \"%s\"'.", typ)
	}
	return strictNode(schema, nil)
}

// strictNode checks one schema and the schemas in it; path is the context
// the API names ("In context=('properties', 'a')").
func strictNode(raw json.RawMessage, path []string) string {
	var n map[string]json.RawMessage
	if json.Unmarshal(raw, &n) != nil {
		return ""
	}
	at := "In context=" + pyTuple(path) + ", "
	keys := objectKeys(raw)
	for _, k := range keys {
		if slices.Contains(strictNotPermitted, k) {
			return at + fmt.Sprintf("'%s' is not permitted.", k)
		}
	}
	if _, ok := n["$ref"]; ok && len(n) > 1 {
		var others []string
		for _, k := range keys {
			if k != "$ref" {
				others = append(others, "'"+k+"'")
			}
		}
		return at + "$ref cannot have keywords {" + strings.Join(others, ", ") + "}."
	}
	if isObjectSchema(n) {
		if ap, ok := n["additionalProperties"]; !ok || string(ap) != "false" {
			return at + "'additionalProperties' is required to be supplied and to be false."
		}
		var required []string
		_ = json.Unmarshal(n["required"], &required)
		for _, name := range objectKeys(n["properties"]) {
			if !slices.Contains(required, name) {
				return at + fmt.Sprintf("'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", name)
			}
		}
	}
	for _, k := range []string{"$defs", "definitions", "properties"} {
		for _, name := range objectKeys(n[k]) {
			var m map[string]json.RawMessage
			_ = json.Unmarshal(n[k], &m)
			if msg := strictNode(m[name], appendPath(path, k, name)); msg != "" {
				return msg
			}
		}
	}
	if items, ok := n["items"]; ok {
		if msg := strictNode(items, appendPath(path, "items")); msg != "" {
			return msg
		}
	}
	var branches []json.RawMessage
	_ = json.Unmarshal(n["anyOf"], &branches)
	for i, b := range branches {
		if msg := strictNode(b, appendPath(path, "anyOf", fmt.Sprint(i))); msg != "" {
			return msg
		}
	}
	return ""
}

func appendPath(path []string, more ...string) []string {
	return append(append([]string(nil), path...), more...)
}

// pyTuple writes a path as Python writes a tuple of strings: (), ('a',),
// ('a', 'b').
func pyTuple(path []string) string {
	quoted := make([]string, len(path))
	for i, p := range path {
		quoted[i] = "'" + p + "'"
	}
	if len(path) == 1 {
		return "(" + quoted[0] + ",)"
	}
	return "(" + strings.Join(quoted, ", ") + ")"
}

// isObjectSchema reports a schema of objects: its type is or includes
// "object".
func isObjectSchema(n map[string]json.RawMessage) bool {
	var s string
	if json.Unmarshal(n["type"], &s) == nil {
		return s == "object"
	}
	var list []string
	return json.Unmarshal(n["type"], &list) == nil && slices.Contains(list, "object")
}

// objectKeys are the keys of a JSON object in the order written.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// anthropicUnsupported are, by type, the keywords Anthropic's structured
// outputs refuse.
var anthropicUnsupported = map[string][]string{
	"integer": {"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"},
	"number":  {"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"},
	"string":  {"maxLength", "minLength"},
	"array":   {"contains", "maxContains", "maxItems", "minContains", "prefixItems", "uniqueItems"},
	"object":  {"dependentRequired", "dependentSchemas", "maxProperties", "minProperties", "patternProperties", "propertyNames", "unevaluatedProperties"},
}

// checkAnthropicSchema applies the documented limits of Anthropic's
// structured outputs and returns the API's text for the first violation
// (after "output_config.format.schema: "), or "".
func checkAnthropicSchema(schema json.RawMessage) string {
	var minItems []string
	msg := anthropicNode(schema, &minItems)
	if msg == "" && len(minItems) > 0 {
		msg = "For 'array' type, 'minItems' values other than 0 or 1 are not supported (got: [" + strings.Join(minItems, ", ") + "])"
	}
	return msg
}

func anthropicNode(raw json.RawMessage, minItems *[]string) string {
	var n map[string]json.RawMessage
	if json.Unmarshal(raw, &n) != nil {
		return ""
	}
	var typ string
	_ = json.Unmarshal(n["type"], &typ)
	if typ == "object" {
		switch ap := string(n["additionalProperties"]); {
		case ap == "":
			return "For 'object' type, 'additionalProperties' must be explicitly set to false"
		case ap == "true":
			return "For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"
		case ap != "false":
			return "For 'object' type, 'additionalProperties: object' is not supported. Please set 'additionalProperties' to false"
		}
	}
	var found []string
	for _, k := range anthropicUnsupported[typ] {
		if _, ok := n[k]; ok {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
	case 1:
		return fmt.Sprintf("For '%s' type, property '%s' is not supported", typ, found[0])
	default:
		return fmt.Sprintf("For '%s' type, properties %s are not supported", typ, strings.Join(found, ", "))
	}
	if v, ok := n["minItems"]; ok && typ == "array" && string(v) != "0" && string(v) != "1" {
		*minItems = append(*minItems, string(v))
	}
	for _, k := range []string{"$defs", "definitions", "properties"} {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(n[k], &m)
		for _, name := range objectKeys(n[k]) {
			if msg := anthropicNode(m[name], minItems); msg != "" {
				return msg
			}
		}
	}
	if msg := anthropicNode(n["items"], minItems); msg != "" {
		return msg
	}
	for _, k := range []string{"anyOf", "allOf"} {
		var branches []json.RawMessage
		_ = json.Unmarshal(n[k], &branches)
		for _, b := range branches {
			if msg := anthropicNode(b, minItems); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// checkAnswer holds a step's answer to the structured output its request
// asks for: a server that constrains the model never sends anything else.
// An answer cut short, a refusal, a turn of tool calls, and a step that
// plays a server that does not hold to it (IgnoreFormat) are let through.
func (s *server) checkAnswer(f format, st *Step) {
	if !f.enforced || st.IgnoreFormat || st.Text == nil || len(st.ToolCalls) > 0 || st.Refusal != "" {
		return
	}
	switch st.Finish {
	case "", "stop", "end_turn":
	default:
		return
	}
	if msg := conforms(f, *st.Text); msg != "" {
		s.violatef("the script answers %q, which the request's %s does not allow (%s); a server that enforces it never sends it: set ignore_format to play one that does not", *st.Text, f.kind, msg)
	}
}

// conforms says what keeps text from being what the format allows, or "".
func conforms(f format, text string) string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return "not JSON"
	}
	if f.kind == "json_object" {
		if _, ok := v.(map[string]any); !ok {
			return "not a JSON object"
		}
		return ""
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(f.schema, &sch); err != nil {
		return "" // a schema the validator cannot read is not held against the script
	}
	rs, err := sch.Resolve(nil)
	if err != nil {
		return ""
	}
	if err := rs.Validate(v); err != nil {
		return err.Error()
	}
	return ""
}

// refuseFormat answers, for a step that plays a server refusing
// structured output, a request that asks for a JSON schema with that
// server's error. It reports whether it answered.
func refuseFormat(w http.ResponseWriter, f format, st *Step) bool {
	if st.RefuseFormat == "" || f.kind != "json_schema" {
		return false
	}
	r := refusals[st.RefuseFormat]
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	_, _ = w.Write([]byte(r.body))
	return true
}

// checkFormatExpect holds a request to the structured output a step
// expects it to ask for.
func (s *server) checkFormatExpect(e *Expect, f format) {
	if e != nil && e.Format != nil && *e.Format != f.kind {
		s.violatef("structured output %q, want %q", f.kind, *e.Format)
	}
}

package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is a tool of a server as it is offered to the model.
type Tool struct {
	// Name is the name the model sees: the server's prefix and the
	// server's own name for it (Original).
	Name     string
	Original string
	Server   string
	// Description and InputSchema are the server's.
	Description string
	InputSchema json.RawMessage
	// Confirm asks a person before each call.
	Confirm bool
	Timeout time.Duration

	// validator checks arguments; nil when the schema is one agentloop
	// cannot check against (the server still checks).
	validator *jsonschema.Resolved
}

// newTool makes a server's tool into the tool offered.
func newTool(c *Config, t *sdk.Tool) (*Tool, error) {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		schema = []byte(`{"type":"object","properties":{}}`)
	}
	tool := &Tool{
		Name: c.exposedName(t.Name), Original: t.Name, Server: c.Name,
		Description: strings.TrimSpace(t.Description), InputSchema: schema,
		Confirm: c.confirms(t.Name), Timeout: c.Timeout,
	}
	if tool.Description == "" {
		tool.Description = strings.TrimSpace(t.Title)
	}
	var s jsonschema.Schema
	if json.Unmarshal(schema, &s) == nil {
		if rs, err := s.Resolve(nil); err == nil {
			tool.validator = rs
		}
	}
	return tool, nil
}

// prepare checks a call's arguments, JSON text, against the tool's schema
// and returns them as the object sent. Empty arguments are {}.
func (t *Tool) prepare(args []byte) (json.RawMessage, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		return json.RawMessage("{}"), nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		if err == nil {
			err = errors.New("more than one JSON value")
		}
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(v))
	}
	if t.validator != nil {
		// jsonschema-go validates the values encoding/json decodes to.
		var plain any
		if err := json.Unmarshal(args, &plain); err == nil {
			if err := t.validator.Validate(plain); err != nil {
				return nil, fmt.Errorf("arguments do not match the tool's schema: %s", schemaError(err))
			}
		}
	}
	return json.RawMessage(args), nil
}

// schemaError is a validation error without the library's prefix.
func schemaError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "validating root: ")
	return strings.TrimPrefix(msg, "validating /: ")
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "something else"
}

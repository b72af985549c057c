package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/schemacheck"
	"github.com/google/jsonschema-go/jsonschema"
)

// Limits on what goes into ARG_* variables. Linux refuses one environment
// string over 128 KiB and all of them together past a quarter of the stack
// limit; a value too long for the environment is still on stdin.
const (
	maxArgEnv      = 64 << 10
	maxArgEnvTotal = 512 << 10
)

// prepared is a call's arguments once checked: the JSON for stdin and the
// ARG_* variables.
type prepared struct {
	stdin []byte
	env   []string
}

// prepare parses, checks and completes a call's arguments. An error is
// written for the model: it names the offending field.
func (t *tool) prepare(args []byte) (*prepared, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		// Some models send "" for a tool without parameters.
		args = []byte("{}")
	}
	v, err := schemacheck.Decode(args)
	if err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", schemacheck.TypeName(v))
	}
	if t.stripNulls {
		stripNulls(t.validator.Root(), obj)
	}
	if err := t.validator.Check(obj, true); err != nil {
		return nil, fmt.Errorf("invalid arguments for %s: %s", t.def.Name, err)
	}
	fillDefaults(t.validator.Root(), obj)

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, fmt.Errorf("arguments cannot be encoded: %v", err)
	}
	p := &prepared{stdin: buf.Bytes()}

	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	total := 0
	for _, k := range keys {
		var s string
		switch x := obj[k].(type) {
		case string:
			s = x
		case json.Number:
			s = x.String()
		case bool:
			s = fmt.Sprint(x)
		default:
			continue // arrays, objects and null are on stdin only
		}
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("invalid arguments for %s: /%s: contains a NUL character, which cannot be passed to a program", t.def.Name, k)
		}
		if len(s) > maxArgEnv || total+len(s) > maxArgEnvTotal {
			continue
		}
		total += len(s)
		p.env = append(p.env, argEnvName(k)+"="+s)
	}
	return p, nil
}

// argEnvName is the variable that carries a top-level scalar argument.
func argEnvName(name string) string {
	b := []byte("ARG_" + strings.ToUpper(name))
	for i := 4; i < len(b); i++ {
		c := b[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// stripNulls drops null values of optional properties: the strict form
// makes the model send null where it means "not given".
func stripNulls(schema *jsonschema.Schema, v any) {
	walkObjects(schema, v, func(s *jsonschema.Schema, obj map[string]any) {
		for k, x := range obj {
			if x == nil && !slices.Contains(s.Required, k) {
				delete(obj, k)
			}
		}
	})
}

// fillDefaults sets each absent property that has a default.
func fillDefaults(schema *jsonschema.Schema, v any) {
	walkObjects(schema, v, func(s *jsonschema.Schema, obj map[string]any) {
		for name, ps := range s.Properties {
			if _, ok := obj[name]; ok || ps.Default == nil {
				continue
			}
			if d, err := schemacheck.Decode(ps.Default); err == nil {
				obj[name] = d
			}
		}
	})
}

// walkObjects calls fn for every object of v alongside its schema, parents
// before their children, following properties and items.
func walkObjects(schema *jsonschema.Schema, v any, fn func(schema *jsonschema.Schema, obj map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(schema, x)
		for name, child := range x {
			if ps, ok := schema.Properties[name]; ok {
				walkObjects(ps, child, fn)
			}
		}
	case []any:
		if schema.Items != nil {
			for _, e := range x {
				walkObjects(schema.Items, e, fn)
			}
		}
	}
}

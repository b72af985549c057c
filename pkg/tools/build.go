package tools

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentloop/agentloop/internal/schemacheck"
	"github.com/google/jsonschema-go/jsonschema"
)

// The schemas of a tool written under parameters: are built here, in one
// pass over the parameters each: the JSON sent to the model, written out
// directly, and the schema arguments are checked against. Marshalling
// nested schema values instead (each level its own json.Marshaler) costs
// time in the square of the depth, as encoding/json re-reads what every
// level returns.

// maxDepth bounds how deep parameters, or a schema written by hand, nest.
// No model is served well by deeper arguments, and a file nesting
// thousands of levels must not slow down every command that loads it.
const maxDepth = 64

// writeObjectSchema writes the schema of an object with the given
// properties, in order. Additional properties are refused so that a
// misspelt argument is an error the model sees rather than a value the tool
// silently ignores. Keys come in a fixed order, so the same definition
// gives the same bytes.
func writeObjectSchema(b *bytes.Buffer, props []*param, strict bool) {
	b.WriteString(`{"properties":{`)
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSON(b, p.name)
		b.WriteByte(':')
		p.writeSchema(b, strict, p.optional)
	}
	b.WriteString(`},"additionalProperties":false`)
	b.WriteString(`,"type":"object"`)
	writeRequired(b, props, strict)
	b.WriteByte('}')
}

func writeRequired(b *bytes.Buffer, props []*param, strict bool) {
	n := 0
	for _, p := range props {
		if !strict && p.optional {
			continue
		}
		if n == 0 {
			b.WriteString(`,"required":[`)
		} else {
			b.WriteByte(',')
		}
		writeJSON(b, p.name)
		n++
	}
	if n > 0 {
		b.WriteByte(']')
	}
}

// writeSchema writes the JSON Schema of p. In strict mode an optional
// parameter becomes nullable instead of omittable, and loses its "default"
// keyword, which strict mode does not accept: the default is said in the
// description and filled in when the model sends null.
func (p *param) writeSchema(b *bytes.Buffer, strict, optional bool) {
	nullable := strict && optional
	b.WriteByte('{')
	first := true
	sep := func(key string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSON(b, key)
		b.WriteByte(':')
	}
	switch p.typ {
	case "array":
		sep("items")
		p.items.writeSchema(b, strict, false)
	case "object":
		sep("properties")
		b.WriteByte('{')
		for i, c := range p.props {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, c.name)
			b.WriteByte(':')
			c.writeSchema(b, strict, c.optional)
		}
		b.WriteString(`},"additionalProperties":false`)
		first = false
	}
	if !nullable {
		sep("type")
		writeJSON(b, p.typ)
	}
	if len(p.enum) > 0 {
		sep("enum")
		enum := p.enum
		if nullable {
			enum = append(enum[:len(enum):len(enum)], nil)
		}
		writeJSON(b, enum)
	}
	if p.typ == "object" {
		writeRequired(b, p.props, strict)
	}
	desc := p.description
	if nullable && p.hasDefault {
		d, _ := json.Marshal(p.def)
		desc = strings.TrimSpace(desc + " (null means the default, " + string(d) + ")")
	}
	if desc != "" {
		sep("description")
		writeJSON(b, desc)
	}
	if p.hasDefault && p.def != nil && !nullable {
		sep("default")
		writeJSON(b, p.def)
	}
	if nullable {
		sep("type")
		writeJSON(b, []string{p.typ, "null"})
	}
	b.WriteByte('}')
}

// checkObjectSchema is the schema call arguments are checked against: the
// plain form, even for a strict tool, whose model's nulls are dropped
// before the check. Each parameter keeps its part in p.check.
func checkObjectSchema(props []*param) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: schemacheck.False()}
	for _, p := range props {
		s.Properties[p.name] = p.checkSchema()
		if !p.optional {
			s.Required = append(s.Required, p.name)
		}
	}
	return s
}

func (p *param) checkSchema() *jsonschema.Schema {
	var s *jsonschema.Schema
	switch p.typ {
	case "object":
		s = checkObjectSchema(p.props)
	case "array":
		s = &jsonschema.Schema{Type: "array", Items: p.items.checkSchema()}
	default:
		s = &jsonschema.Schema{Type: p.typ}
	}
	for _, e := range p.enum {
		v, _ := schemacheck.Numbers(e)
		s.Enum = append(s.Enum, v)
	}
	if p.hasDefault {
		s.Default, _ = json.Marshal(p.def) // null too: checked like any default
	}
	p.check = s
	return s
}

package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/schemacheck"
	"github.com/agentloop/agentloop/internal/suggest"
)

// param is one parameter of a tool, as written under parameters:.
type param struct {
	name        string
	typ         string
	description string
	enum        []any
	def         any
	hasDefault  bool
	optional    bool
	items       *param
	props       []*param
	line        int
	defNode     *yaml.Node         // where the default was written
	check       *jsonschema.Schema // the parameter's part of the schema arguments are checked against
}

// schema decodes parameters: or schema: and sets the tool's schemas.
func (f *fileLoader) schema(n *yaml.Node, t *tool, fields map[string]pair) {
	params, hasParams := fields["parameters"]
	raw, hasRaw := fields["schema"]
	if hasParams && hasRaw {
		f.errorf(raw.key, "give either 'parameters:' or 'schema:', not both")
		return
	}
	if hasRaw {
		f.rawSchema(t, raw)
		return
	}
	var props []*param
	if hasParams {
		switch {
		case params.val.Kind == yaml.ScalarNode && params.val.Tag == "!!null":
		case params.val.Kind != yaml.MappingNode:
			f.errorf(params.val, "parameters: want a mapping of parameter names to {type: ..., description: ...}, got %s", kindName(params.val))
			return
		default:
			// A tool with a bad parameter is not registered, but the schema
			// of the others is still built, so that one pass over the file
			// reports their problems too (wrong defaults, clashing names).
			props = f.params(params.val, "parameter", 1)
		}
	}
	f.checkArgNames(props)

	var sent bytes.Buffer
	writeObjectSchema(&sent, props, t.def.Strict)
	t.def.Parameters = sent.Bytes()
	// Arguments are checked against the plain form even for a strict tool:
	// nulls of optional parameters are dropped first, so both what a strict
	// model sends and a hand-written call that leaves them out are accepted.
	t.stripNulls = t.def.Strict
	check := checkObjectSchema(props)
	rs, err := check.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		// A default that does not fit its parameter: find which, and say
		// where it was written.
		f.checkDefaults(props)
		if _, err := check.Resolve(nil); err != nil {
			f.errorf(n, "the schema does not resolve: %v", err)
		}
		return
	}
	t.validator = schemacheck.FromResolved(check, rs)
}

// params decodes a mapping of parameter names to specs. The ones in error
// are reported and left out.
func (f *fileLoader) params(n *yaml.Node, what string, depth int) []*param {
	pairs, _ := f.fields(n, nil, what+" name")
	var props []*param
	for _, p := range pairs {
		if !validName(p.key.Value) {
			f.errorf(p.key, "%s name %q: use 1 to 64 letters, digits, '_' or '-'", what, p.key.Value)
			continue
		}
		if pp, ok := f.param(p.key.Value, p.val, true, depth); ok {
			props = append(props, pp)
		}
	}
	return props
}

// param decodes one parameter spec, depth levels deep (1 for those of the
// tool). In items: there is no 'required'.
func (f *fileLoader) param(name string, n *yaml.Node, canBeOptional bool, depth int) (*param, bool) {
	if depth > maxDepth {
		f.errorf(n, "parameter '%s': nested more than %d levels deep (properties: and items: count a level each)", name, maxDepth)
		return nil, false
	}
	if n.Kind != yaml.MappingNode {
		f.errorf(n, "parameter '%s': want a mapping such as {type: string, description: ...}, got %s", name, kindName(n))
		return nil, false
	}
	nerrs := len(f.errs)
	_, fields := f.fields(n, paramKeys, "parameter key")
	p := &param{name: name, line: n.Line}

	typ, hasType := fields["type"]
	if !hasType {
		if slices.Contains(f.suggested, "type") {
			return nil, false
		}
		f.errorf(n, "parameter '%s': missing 'type' (one of %s)", name, strings.Join(paramTypes, ", "))
		return nil, false
	}
	if s, ok := f.scalar(typ, "a type"); ok {
		switch {
		case slices.Contains(paramTypes, s):
			p.typ = s
		case typeAliases[s] != "":
			f.errorf(typ.val, "parameter '%s': unknown type '%s' (did you mean '%s'?)", name, s, typeAliases[s])
		default:
			f.errorf(typ.val, "parameter '%s': unknown type '%s'%s; use one of %s", name, s, suggest.DidYouMean(s, paramTypes), strings.Join(paramTypes, ", "))
		}
	}
	if p.typ == "" {
		return nil, false
	}
	if d, ok := fields["description"]; ok {
		if s, ok := f.scalar(d, "text"); ok {
			p.description = strings.TrimSpace(s)
		}
	}
	if r, ok := fields["required"]; ok {
		if !canBeOptional {
			f.errorf(r.key, "parameter '%s': 'required' has no meaning for the items of an array", name)
		} else if b, ok := f.boolean(r, fmt.Sprintf("parameter '%s': required", name)); ok {
			p.optional = !b
		}
	}
	if it, ok := fields["items"]; ok {
		if p.typ != "array" {
			f.errorf(it.key, "parameter '%s': 'items' is only for type array", name)
		} else {
			p.items, _ = f.param(name+"[]", it.val, false, depth+1)
		}
	} else if p.typ == "array" {
		f.errorf(n, "parameter '%s': type array needs 'items', e.g. items: {type: string}", name)
	}
	if pr, ok := fields["properties"]; ok {
		switch {
		case p.typ != "object":
			f.errorf(pr.key, "parameter '%s': 'properties' is only for type object", name)
		case pr.val.Kind != yaml.MappingNode || len(pr.val.Content) == 0:
			f.errorf(pr.val, "parameter '%s': properties: want a non-empty mapping of names to parameter specs", name)
		default:
			p.props = f.params(pr.val, "property", depth+1)
		}
	} else if p.typ == "object" {
		f.errorf(n, "parameter '%s': type object needs 'properties'", name)
	}
	if e, ok := fields["enum"]; ok {
		p.enum = f.enum(name, p.typ, e)
	}
	if len(f.errs) != nerrs {
		return nil, false
	}
	if d, ok := fields["default"]; ok {
		if !p.optional {
			f.errorf(d.key, "parameter '%s': a default only applies to an optional parameter; add 'required: false'", name)
			return nil, false
		}
		v, ok := f.value(d.val)
		if !ok {
			return nil, false
		}
		// Checked against the schema once the whole tool's is compiled.
		p.def, p.hasDefault, p.defNode = v, true, d.val
	}
	return p, true
}

// enum decodes enum values, each of which must have the parameter's type.
func (f *fileLoader) enum(name, typ string, e pair) []any {
	if typ == "array" || typ == "object" {
		f.errorf(e.key, "parameter '%s': 'enum' is only for string, integer, number and boolean", name)
		return nil
	}
	if e.val.Kind != yaml.SequenceNode || len(e.val.Content) == 0 {
		f.errorf(e.val, "parameter '%s': enum: want a non-empty list of values", name)
		return nil
	}
	var vals []any
	seen := map[string]bool{}
	for _, n := range e.val.Content {
		if n.Kind != yaml.ScalarNode || !scalarHasType(n, typ) {
			hint := ""
			if typ == "string" && n.Kind == yaml.ScalarNode {
				hint = fmt.Sprintf(" (quote it: \"%s\")", n.Value)
			}
			f.errorf(n, "parameter '%s': enum value %s is not of type %s%s", name, kindName(n), typ, hint)
			continue
		}
		v, ok := f.value(n)
		if !ok {
			continue
		}
		key, _ := json.Marshal(v)
		if seen[string(key)] {
			f.errorf(n, "parameter '%s': enum value %s is listed twice", name, key)
			continue
		}
		seen[string(key)] = true
		vals = append(vals, v)
	}
	return vals
}

// scalarHasType reports whether a YAML scalar is a value of the JSON type.
func scalarHasType(n *yaml.Node, typ string) bool {
	switch typ {
	case "string":
		return n.Tag == "!!str"
	case "integer":
		return n.Tag == "!!int"
	case "number":
		return n.Tag == "!!int" || n.Tag == "!!float"
	case "boolean":
		return n.Tag == "!!bool"
	}
	return false
}

// checkDefaults reports each default that does not fit its parameter's
// schema, with the same checks as call arguments. It runs only when one
// does not: each check resolves the parameter's part of the schema alone.
func (f *fileLoader) checkDefaults(props []*param) {
	for _, p := range props {
		if p.hasDefault && p.check != nil {
			rs, err := p.check.Resolve(nil)
			if err == nil {
				err = schemacheck.FromResolved(p.check, rs).Check(p.def, false)
			}
			if err != nil {
				f.errorf(p.defNode, "parameter '%s': default %s", p.name, strings.ReplaceAll(err.Error(), "(value): ", ""))
			}
		}
		if p.items != nil {
			f.checkDefaults([]*param{p.items})
		}
		f.checkDefaults(p.props)
	}
}

// checkArgNames reports two parameters that would share an ARG_ variable.
func (f *fileLoader) checkArgNames(props []*param) {
	seen := map[string]*param{}
	for _, p := range props {
		env := argEnvName(p.name)
		if prev, ok := seen[env]; ok {
			f.fail(f.file, p.line, nil, "parameters '%s' and '%s' would both be passed as %s; rename one", prev.name, p.name, env)
			continue
		}
		seen[env] = p
	}
}

// rawSchema takes a JSON Schema written out under schema:.
func (f *fileLoader) rawSchema(t *tool, raw pair) {
	if raw.val.Kind != yaml.MappingNode {
		f.errorf(raw.val, "schema: want a JSON Schema object, got %s", kindName(raw.val))
		return
	}
	if typ := mapValue(raw.val, "type"); typ == nil || typ.Value != "object" || typ.Kind != yaml.ScalarNode {
		f.errorf(raw.val, "schema: the top level must have 'type: object' (tool arguments are a JSON object)")
		return
	}
	if deep := tooDeep(raw.val, 1); deep != nil {
		f.errorf(deep, "schema: nested more than %d levels deep (each schema inside another counts a level)", maxDepth)
		return
	}
	var buf bytes.Buffer
	if !f.encodeJSON(&buf, raw.val) {
		return
	}
	doc, err := schemacheck.Decode(buf.Bytes())
	if err != nil {
		f.errorf(raw.val, "schema: %v", err)
		return
	}
	m := doc.(map[string]any)
	if err := schemacheck.CheckDoc(m); err != nil {
		f.errorf(raw.val, "schema: not a valid JSON Schema: %s", err)
		return
	}
	s, err := schemacheck.Compile(m)
	if err != nil {
		f.errorf(raw.val, "schema: not a valid JSON Schema: %s", oneLine(err.Error()))
		return
	}
	if t.def.Strict {
		if msg := strictProblem(m, ""); msg != "" {
			f.errorf(raw.val, "schema: strict: true needs the schema in strict form: %s", msg)
			return
		}
	}
	var names []*param
	if props, ok := m["properties"].(map[string]any); ok {
		for name := range props {
			names = append(names, &param{name: name, line: raw.val.Line})
		}
		slices.SortFunc(names, func(a, b *param) int { return strings.Compare(a.name, b.name) })
	}
	f.checkArgNames(names)
	t.def.Parameters = buf.Bytes()
	t.validator = s
}

// strictProblem checks the rules OpenAI's strict mode puts on every object
// of a schema written by hand.
func strictProblem(s map[string]any, at string) string {
	if props, ok := s["properties"].(map[string]any); ok {
		if ap, ok := s["additionalProperties"].(bool); !ok || ap {
			return fmt.Sprintf("%s/additionalProperties must be false", at)
		}
		req, _ := s["required"].([]any)
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if !slices.Contains(req, any(name)) {
				return fmt.Sprintf("%s/required must list %q (make it nullable to keep it optional)", at, name)
			}
			if sub, ok := props[name].(map[string]any); ok {
				if msg := strictProblem(sub, at+"/properties/"+name); msg != "" {
					return msg
				}
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		return strictProblem(items, at+"/items")
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// value converts a YAML node to a JSON value (numbers as json.Number).
func (f *fileLoader) value(n *yaml.Node) (any, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		return f.scalarValue(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, ok := f.value(c)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				f.errorf(k, "a key must be a plain value, got %s", kindName(k))
				return nil, false
			}
			if _, dup := out[k.Value]; dup {
				f.errorf(k, "key '%s' given twice", k.Value)
				return nil, false
			}
			v, ok := f.value(n.Content[i+1])
			if !ok {
				return nil, false
			}
			out[k.Value] = v
		}
		return out, true
	}
	f.errorf(n, "unsupported YAML value")
	return nil, false
}

func (f *fileLoader) scalarValue(n *yaml.Node) (any, bool) {
	switch n.Tag {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			f.errorf(n, "%v", err)
			return nil, false
		}
		return b, true
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), true
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			return json.Number(strconv.FormatUint(u, 10)), true
		}
		f.errorf(n, "integer %s is out of range", n.Value)
		return nil, false
	case "!!float":
		var x float64
		if err := n.Decode(&x); err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			f.errorf(n, "%s is not a number JSON can hold", n.Value)
			return nil, false
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), true
	case "!!str", "!!timestamp", "!!binary":
		// A timestamp or binary is text to JSON; keep it as written.
		return n.Value, true
	}
	f.errorf(n, "unsupported YAML tag %s", n.Tag)
	return nil, false
}

// encodeJSON writes the YAML value n as JSON, keeping the order of mapping
// keys, so a schema written by hand reaches the model as it was written.
func (f *fileLoader) encodeJSON(buf *bytes.Buffer, n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				f.errorf(k, "a key must be a plain value, got %s", kindName(k))
				return false
			}
			if seen[k.Value] {
				f.errorf(k, "key '%s' given twice", k.Value)
				return false
			}
			seen[k.Value] = true
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSON(buf, k.Value)
			buf.WriteByte(':')
			if !f.encodeJSON(buf, n.Content[i+1]) {
				return false
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if !f.encodeJSON(buf, c) {
				return false
			}
		}
		buf.WriteByte(']')
	default:
		v, ok := f.value(n)
		if !ok {
			return false
		}
		writeJSON(buf, v)
	}
	return true
}

func writeJSON(buf *bytes.Buffer, v any) {
	b, _ := json.Marshal(v) // strings, numbers, booleans and null cannot fail
	buf.Write(b)
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
		switch kind := schemacheck.KeywordKind(k); {
		case kind == schemacheck.OneSchema && (v.Kind != yaml.SequenceNode || k != "items"):
			subs = []*yaml.Node{v}
		case kind == schemacheck.SchemaMap && v.Kind == yaml.MappingNode:
			for j := 1; j < len(v.Content); j += 2 {
				subs = append(subs, v.Content[j])
			}
		case kind != schemacheck.NotSchema && v.Kind == yaml.SequenceNode:
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

package answerschema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Wire is the schema in the form an API is sent it, and what that form
// leaves to the check here.
type Wire struct {
	// Schema is the JSON Schema to send.
	Schema []byte
	// Enforced says that the API constrains the answer to Schema: for
	// OpenAI, send it with strict: true; for Anthropic, it can be sent at
	// all. When it cannot be, Why says what prevents it, at its place in
	// the schema; OpenAI's Schema is then the schema as it is, for
	// strict: false, and Anthropic's is nil.
	Enforced bool
	Why      string
	// Loosened are the keywords of the schema the API does not take and
	// that were left out of Schema, each at its place
	// ("/properties/name/minLength"): the check here still holds the
	// answer to them, and each is said in its schema's description, for
	// the model. (A format the API does not know is said there too, but is
	// not listed: "format" is checked nowhere but by an API that takes it.)
	Loosened []string
}

// OpenAI is the schema in the strict form of OpenAI's Structured Outputs
// (Chat Completions response_format json_schema, Responses text.format),
// made as openai-python's to_strict_json_schema makes it
// (src/openai/lib/_pydantic.py): every object gets additionalProperties
// false and lists every property in required; a property that was optional
// is made nullable, and its null read back as "not given" (Check with
// strict); $ref with other keywords beside it is replaced by what it
// points to; a single allOf is merged. Beyond that helper, oneOf becomes
// anyOf, annotations strict mode does not take are left out, and the
// value constraints it does not take (minLength, maxLength, uniqueItems,
// minProperties, maxProperties) are left to the check here; a format it
// does not know is said in the description. A schema strict mode cannot express (allOf of several, not,
// if/then/else, patternProperties, an object of any keys, a node with no
// type, a top level that is not an object, past the size limits) is not
// enforced, and Why says where.
func (s *Schema) OpenAI() Wire {
	return s.wire(openAIRules)
}

// Anthropic is the schema in the form of Anthropic's structured outputs
// (Messages output_config.format), made as anthropic-sdk-go's
// transformSchema makes it (schemautil.go): every object with properties
// gets additionalProperties false, oneOf becomes anyOf, and every keyword
// the API does not take (minimum, maximum, minLength, maxLength, maxItems,
// minItems past 1, and the rest) is left out and said in the description,
// for the check here; so is a format it does not know. Optional properties
// stay optional. An object of any keys and a recursive schema cannot be
// sent.
func (s *Schema) Anthropic() Wire {
	return s.wire(anthropicRules)
}

// rules is what one API's structured output takes.
type rules struct {
	name string
	// allRequired: every property in required, the optional ones nullable.
	allRequired bool
	// keeps reports whether the API takes keyword k with value v.
	keeps func(k string, v *node) bool
	// refuses reports whether keyword k makes the schema one the API
	// cannot be sent in its enforced form; the others it does not keep are
	// left out and described.
	refuses func(k string) bool
	// needsType: every schema must say what it takes (a type, an enum, a
	// const, anyOf or $ref), and an array its items.
	needsType bool
	// topObject: the top level must be an object.
	topObject bool
	// recursion: references may point at a schema they are part of.
	recursion bool
	// limits: the API's limits on sizes.
	limits bool
}

var openAIRules = &rules{
	name:        "OpenAI strict mode",
	allRequired: true,
	keeps: func(k string, v *node) bool {
		switch k {
		case "type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs", "definitions",
			"properties", "required", "additionalProperties", "items", "pattern",
			"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems":
			return true
		case "format":
			f, _ := v.str()
			switch f {
			case "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid":
				return true
			}
		}
		return false
	},
	refuses: func(k string) bool {
		switch k {
		case "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies",
			"patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "prefixItems",
			"additionalItems", "contains", "minContains", "maxContains", "$dynamicRef", "$recursiveRef":
			return true
		}
		return false
	},
	needsType: true,
	topObject: true,
	recursion: true,
	limits:    true,
}

var anthropicRules = &rules{
	name: "Anthropic's structured outputs",
	keeps: func(k string, v *node) bool {
		switch k {
		case "type", "description", "title", "enum", "const", "anyOf", "allOf", "$ref", "$defs", "definitions",
			"properties", "required", "additionalProperties", "items", "pattern":
			return true
		case "minItems":
			return string(v.lit) == "0" || string(v.lit) == "1"
		case "format":
			f, _ := v.str()
			switch f {
			case "date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid":
				return true
			}
		}
		return false
	},
	refuses: func(string) bool { return false },
}

// OpenAI's documented limits of a strict schema (Structured Outputs guide,
// "Supported schemas").
const (
	maxStrictProperties  = 5000
	maxStrictNesting     = 10
	maxStrictEnumValues  = 1000
	maxStrictStringBytes = 120000
)

// cannot is a schema an API cannot be sent in its enforced form.
type cannot struct{ at, msg string }

func (c *cannot) Error() string {
	if c.at == "" {
		return c.msg
	}
	return c.at + ": " + c.msg
}

type converter struct {
	r        *rules
	root     *node
	loosened []string
	// inlining counts the references replaced by what they point to,
	// around a chain of them.
	inlining int
}

func (s *Schema) wire(r *rules) Wire {
	c := &converter{r: r, root: s.tree.clone()}
	err := c.convert(c.root, "", 0)
	if err == nil && r.topObject && !isType(c.root, "object") {
		err = &cannot{"", "the top level must be an object (type: object); put a list or a value under a property of one"}
	}
	if err == nil && !r.recursion {
		err = c.recursive()
	}
	if err == nil && r.limits {
		err = c.checkLimits()
	}
	if err != nil {
		w := Wire{Why: fmt.Sprintf("%s cannot express the schema: %s", r.name, err)}
		if r.allRequired {
			w.Schema = s.raw
		}
		return w
	}
	slices.Sort(c.loosened)
	return Wire{Schema: c.root.bytes(), Enforced: true, Loosened: c.loosened}
}

// convert rewrites the schema n, at pointer at, in place.
func (c *converter) convert(n *node, at string, depth int) error {
	if depth > maxNesting {
		return &cannot{at, fmt.Sprintf("nested more than %d levels deep", maxNesting)}
	}
	if n.kind != '{' {
		if c.r.needsType {
			return &cannot{at, "a schema of true or false says no type; write the schema out"}
		}
		return nil
	}
	if err := c.inline(n, at); err != nil {
		return err
	}
	// Composition first: a single allOf is the schema it holds, oneOf the
	// anyOf it nearly is (the check here holds the answer to exactly one).
	if all := n.get("allOf"); all != nil && all.kind == '[' && len(all.items) == 1 && all.items[0].kind == '{' && !c.r.keeps("allOf", all) {
		n.del("allOf")
		for _, m := range all.items[0].members {
			n.set(m.key, m.val)
		}
		if err := c.inline(n, at); err != nil {
			return err
		}
	}
	if one := n.get("oneOf"); one != nil && n.get("anyOf") == nil {
		n.set("anyOf", one)
		n.del("oneOf")
	}

	var hints []string
	kept := n.members[:0]
	for _, m := range n.members {
		switch {
		case c.r.keeps(m.key, m.val):
			kept = append(kept, m)
		case c.r.refuses(m.key):
			return &cannot{at + "/" + escapePointer(m.key), m.key + " is not among the keywords it takes"}
		case isAnnotation(m.key) || !isKeyword(m.key):
			// Said for people and tools, not checked: left out.
		case m.key == "format":
			// Not checked here either (the validator takes format as an
			// annotation): said to the model only.
			hints = append(hints, m.key+": "+string(m.val.bytes()))
		default:
			c.loosened = append(c.loosened, at+"/"+escapePointer(m.key))
			hints = append(hints, m.key+": "+string(m.val.bytes()))
		}
	}
	n.members = kept
	if len(hints) > 0 {
		slices.Sort(hints)
		desc, _ := n.get("description").str()
		if desc != "" {
			desc += "\n\n"
		}
		n.set("description", strNode(desc+"{"+strings.Join(hints, ", ")+"}"))
	}

	if c.r.needsType && n.get("type") == nil && n.get("anyOf") == nil && n.get("$ref") == nil && n.get("enum") == nil && n.get("const") == nil {
		return &cannot{at, "says no type; give it one (type: string, object, …)"}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs := n.get(k); defs != nil && defs.kind == '{' {
			for _, m := range defs.members {
				if err := c.convert(m.val, at+"/"+k+"/"+escapePointer(m.key), depth+1); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range []string{"anyOf", "allOf"} {
		if list := n.get(k); list != nil && list.kind == '[' {
			for i, b := range list.items {
				if err := c.convert(b, at+"/"+k+"/"+strconv.Itoa(i), depth+1); err != nil {
					return err
				}
			}
		}
	}
	if isType(n, "object") || n.get("properties") != nil {
		if err := c.object(n, at, depth); err != nil {
			return err
		}
	}
	if items := n.get("items"); items != nil {
		if items.kind == '[' && c.r.needsType {
			return &cannot{at + "/items", "a list of item schemas (a tuple) is not taken; give items one schema"}
		}
		if items.kind == '[' {
			// Left to the check here, as every keyword the API does not
			// take is.
			n.del("items")
			c.loosened = append(c.loosened, at+"/items")
			desc, _ := n.get("description").str()
			if desc != "" {
				desc += "\n\n"
			}
			n.set("description", strNode(desc+"{items: "+string(items.bytes())+"}"))
			return nil
		}
		if err := c.convert(items, at+"/items", depth+1); err != nil {
			return err
		}
	} else if c.r.needsType && isType(n, "array") {
		return &cannot{at, "an array says nothing of its items; give it items"}
	}
	return nil
}

// object makes an object schema's properties what the API takes.
func (c *converter) object(n *node, at string, depth int) error {
	props := n.get("properties")
	if props == nil || props.kind != '{' || len(props.members) == 0 {
		if ap := n.get("additionalProperties"); ap != nil && ap.isFalse() {
			return nil // the empty object, as the schema says
		}
		return &cannot{at, "an object of any keys cannot be constrained: name its properties"}
	}
	required := map[string]bool{}
	if r := n.get("required"); r != nil {
		for _, it := range r.items {
			if name, ok := it.str(); ok {
				required[name] = true
			}
		}
	}
	all := &node{kind: '['}
	for i, m := range props.members {
		if err := c.convert(m.val, at+"/properties/"+escapePointer(m.key), depth+1); err != nil {
			return err
		}
		if c.r.allRequired {
			all.items = append(all.items, strNode(m.key))
			if !required[m.key] && !(&Schema{tree: c.root}).acceptsNull(m.val, 0) {
				props.members[i].val = nullable(m.val)
			}
		}
	}
	n.set("additionalProperties", boolNode(false))
	if c.r.allRequired {
		n.set("required", all)
	}
	return nil
}

// inline replaces a $ref that has other keywords beside it by what it
// points to, those keywords winning, as to_strict_json_schema does.
func (c *converter) inline(n *node, at string) error {
	ref, ok := n.get("$ref").str()
	if !ok || len(n.members) == 1 {
		return nil
	}
	c.inlining++
	defer func() { c.inlining-- }()
	if c.inlining > maxRefs {
		return &cannot{at, "references that lead to one another without end"}
	}
	target := (&Schema{tree: c.root}).resolve(ref)
	if target == nil || target.kind != '{' {
		return &cannot{at + "/$ref", fmt.Sprintf("%q points to no schema in the document", ref)}
	}
	merged := target.clone()
	for _, m := range n.members {
		if m.key != "$ref" {
			merged.set(m.key, m.val)
		}
	}
	n.members = merged.members
	return c.inline(n, at)
}

// nullable is a schema that takes what n takes, and null: a scalar's type
// with "null" added (and null in its enum), anything else in anyOf with
// {"type": "null"}.
func nullable(n *node) *node {
	t := n.get("type")
	name, scalar := t.str()
	switch name {
	case "object", "array":
		scalar = false
	}
	if scalar && n.get("const") == nil && n.get("$ref") == nil && n.get("anyOf") == nil {
		n.set("type", &node{kind: '[', items: []*node{strNode(name), strNode("null")}})
		if e := n.get("enum"); e != nil {
			e.items = append(e.items, nullNode())
		}
		return n
	}
	if branches := n.get("anyOf"); branches != nil && len(n.members) <= 2 && (len(n.members) == 1 || n.get("description") != nil) {
		branches.items = append(branches.items, &node{kind: '{', members: []member{{"type", strNode("null")}}})
		return n
	}
	return &node{kind: '{', members: []member{{"anyOf", &node{kind: '[', items: []*node{
		n, {kind: '{', members: []member{{"type", strNode("null")}}},
	}}}}}
}

// recursive refuses references that lead back into the schema that makes
// them.
func (c *converter) recursive() error {
	s := &Schema{tree: c.root}
	var walk func(n *node, at string, open []*node, depth int) error
	walk = func(n *node, at string, open []*node, depth int) error {
		if n == nil || depth > maxNesting*2 {
			return nil
		}
		if slices.Contains(open, n) {
			return &cannot{at, "a recursive schema (one that refers to itself) is not taken"}
		}
		open = append(open, n)
		if ref, ok := n.get("$ref").str(); ok {
			if err := walk(s.resolve(ref), at, open, depth+1); err != nil {
				return err
			}
		}
		for _, m := range n.members {
			if m.key == "$defs" || m.key == "definitions" {
				continue // reached through the references to them
			}
			if err := walk(m.val, at+"/"+escapePointer(m.key), open, depth+1); err != nil {
				return err
			}
		}
		for i, it := range n.items {
			if err := walk(it, at+"/"+strconv.Itoa(i), open, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(c.root, "", nil, 0)
}

// checkLimits holds the strict form to OpenAI's limits.
func (c *converter) checkLimits() error {
	props, enums, strs, deepest := 0, 0, 0, 0
	var walk func(n *node, level int)
	walk = func(n *node, level int) {
		if n == nil || n.kind != '{' {
			return
		}
		if isType(n, "object") {
			level++
			deepest = max(deepest, level)
		}
		for _, m := range n.members {
			switch m.key {
			case "properties", "$defs", "definitions":
				for _, p := range m.val.members {
					strs += len(p.key)
					if m.key == "properties" {
						props++
					}
					walk(p.val, level)
				}
			case "enum":
				enums += len(m.val.items)
				for _, e := range m.val.items {
					if s, ok := e.str(); ok {
						strs += len(s)
					}
				}
			case "const":
				if s, ok := m.val.str(); ok {
					strs += len(s)
				}
			case "items":
				walk(m.val, level)
			case "anyOf":
				for _, b := range m.val.items {
					walk(b, level)
				}
			}
		}
	}
	walk(c.root, 0)
	switch {
	case props > maxStrictProperties:
		return &cannot{"", fmt.Sprintf("%d properties, more than the %d it takes", props, maxStrictProperties)}
	case deepest > maxStrictNesting:
		return &cannot{"", fmt.Sprintf("objects nested %d deep, more than the %d it takes", deepest, maxStrictNesting)}
	case enums > maxStrictEnumValues:
		return &cannot{"", fmt.Sprintf("%d enum values, more than the %d it takes", enums, maxStrictEnumValues)}
	case strs > maxStrictStringBytes:
		return &cannot{"", fmt.Sprintf("%d characters of names, enum values and consts, more than the %d it takes", strs, maxStrictStringBytes)}
	}
	return nil
}

// isType reports whether n's type is t or a list that includes t.
func isType(n *node, t string) bool {
	typ := n.get("type")
	if name, ok := typ.str(); ok {
		return name == t
	}
	if typ != nil {
		for _, it := range typ.items {
			if name, ok := it.str(); ok && name == t {
				return true
			}
		}
	}
	return false
}

// isAnnotation reports the keywords that say something of a schema or its
// values without constraining them.
func isAnnotation(k string) bool {
	switch k {
	case "$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary", "$recursiveAnchor",
		"examples", "default", "deprecated", "readOnly", "writeOnly",
		"contentEncoding", "contentMediaType", "contentSchema", "title", "description":
		return true
	}
	return false
}

// isKeyword reports the keywords of JSON Schema (draft 2020-12 and
// draft-07) that constrain a value. A key that is none of them is
// ignored by a validator, and left out of the wire form.
func isKeyword(k string) bool {
	switch k {
	case "type", "enum", "const", "anyOf", "allOf", "oneOf", "not", "if", "then", "else",
		"$ref", "$dynamicRef", "$recursiveRef", "$defs", "definitions",
		"properties", "patternProperties", "additionalProperties", "propertyNames", "required",
		"dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties",
		"minProperties", "maxProperties",
		"items", "prefixItems", "additionalItems", "unevaluatedItems", "contains", "minContains", "maxContains",
		"minItems", "maxItems", "uniqueItems",
		"minLength", "maxLength", "pattern", "format",
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return true
	}
	return false
}

func escapePointer(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

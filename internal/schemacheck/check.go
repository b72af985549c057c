// Package schemacheck checks JSON values against JSON Schemas with
// google/jsonschema-go and says what is wrong in the words a model or a
// person acts on: every offending part of the value by its JSON pointer,
// "/temp: got string, want integer". A schema document is checked against
// the meta-schema of its draft first, so that a mistake in the schema is
// reported as one, at its keyword. Tool arguments and structured answers
// are both checked here.
//
// Nothing is compiled when the package is initialised: the meta-schemas
// are read the first time a schema document is checked, and the few
// regular expressions the messages need the first time one is worded.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a compiled JSON Schema, ready to check values. The library
// decides what is valid; the describer words what is wrong, part by part.
type Schema struct {
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// FromResolved is the Schema of a schema built and resolved by the caller.
func FromResolved(root *jsonschema.Schema, rs *jsonschema.Resolved) *Schema {
	return &Schema{root: root, resolved: rs}
}

// Root is the schema as the library holds it.
func (a *Schema) Root() *jsonschema.Schema { return a.root }

// supportedDrafts are the $schema values a schema may declare;
// none means draft 2020-12.
var supportedDrafts = []string{
	"https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
}

// Compile makes the checker of a schema document decoded by Decode,
// resolving its references. A reference outside the document is refused:
// schemas are self-contained, and compiling one reads no file and no
// network.
func Compile(doc any) (*Schema, error) {
	s, err := schemaFromDoc(doc)
	if err != nil {
		return nil, err
	}
	if s.Schema != "" && !slices.Contains(supportedDrafts, s.Schema) {
		return nil, fmt.Errorf("$schema %q is not supported; leave it out (draft 2020-12) or use draft-07", s.Schema)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{Loader: noLoader})
	if err != nil {
		return nil, err
	}
	return &Schema{root: s, resolved: rs}, nil
}

// schemaFromDoc turns a decoded schema document into the library's Schema.
// Each level is unmarshalled with its subschemas taken out, and they are
// put in place after: unmarshalling the whole document at once reads every
// level again for each level above it, a time in the square of the depth.
func schemaFromDoc(v any) (*jsonschema.Schema, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return &jsonschema.Schema{}, nil
		}
		return False(), nil
	case map[string]any:
		local := make(map[string]any, len(x))
		subs := map[string]any{}
		for k, e := range x {
			if held(k, e) {
				subs[k] = e
			} else {
				local[k] = e
			}
		}
		data, err := json.Marshal(local)
		if err != nil {
			return nil, err
		}
		s := new(jsonschema.Schema)
		if err := json.Unmarshal(data, s); err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), "json: "))
		}
		for k, e := range subs {
			if err := setSubschemas(s, k, e); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		}
		return s, nil
	}
	return nil, fmt.Errorf("a schema is an object or a boolean, got %s", TypeName(v))
}

// held reports whether the value of keyword k is schemas that
// schemaFromDoc converts itself. Anything else (a wrong type included) is
// left to the library.
func held(k string, v any) bool {
	isSchema := func(e any) bool {
		switch e.(type) {
		case bool, map[string]any:
			return true
		}
		return false
	}
	switch KeywordKind(k) {
	case OneSchema:
		if arr, ok := v.([]any); ok && k == "items" {
			return !slices.ContainsFunc(arr, func(e any) bool { return !isSchema(e) })
		}
		return isSchema(v)
	case SchemaMap:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, e := range m {
			if !isSchema(e) && !(k == "dependencies" && isStringList(e)) {
				return false
			}
		}
		return true
	case SchemaList:
		arr, ok := v.([]any)
		return ok && !slices.ContainsFunc(arr, func(e any) bool { return !isSchema(e) })
	}
	return false
}

func isStringList(v any) bool {
	arr, ok := v.([]any)
	return ok && !slices.ContainsFunc(arr, func(e any) bool { _, ok := e.(string); return !ok })
}

// setSubschemas converts the schemas of keyword k and sets them in s.
func setSubschemas(s *jsonschema.Schema, k string, v any) error {
	one := func() (*jsonschema.Schema, error) { return schemaFromDoc(v) }
	mapOf := func() (map[string]*jsonschema.Schema, error) {
		out := map[string]*jsonschema.Schema{}
		for name, e := range v.(map[string]any) {
			if k == "dependencies" && isStringList(e) {
				if s.DependencyStrings == nil {
					s.DependencyStrings = map[string][]string{}
				}
				for _, d := range e.([]any) {
					s.DependencyStrings[name] = append(s.DependencyStrings[name], d.(string))
				}
				continue
			}
			c, err := schemaFromDoc(e)
			if err != nil {
				return nil, err
			}
			out[name] = c
		}
		return out, nil
	}
	listOf := func() ([]*jsonschema.Schema, error) {
		var out []*jsonschema.Schema
		for _, e := range v.([]any) {
			c, err := schemaFromDoc(e)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	var err error
	switch k {
	case "items":
		if _, ok := v.([]any); ok {
			s.ItemsArray, err = listOf()
		} else {
			s.Items, err = one()
		}
	case "additionalItems":
		s.AdditionalItems, err = one()
	case "additionalProperties":
		s.AdditionalProperties, err = one()
	case "contains":
		s.Contains, err = one()
	case "not":
		s.Not, err = one()
	case "if":
		s.If, err = one()
	case "then":
		s.Then, err = one()
	case "else":
		s.Else, err = one()
	case "propertyNames":
		s.PropertyNames, err = one()
	case "unevaluatedItems":
		s.UnevaluatedItems, err = one()
	case "unevaluatedProperties":
		s.UnevaluatedProperties, err = one()
	case "contentSchema":
		s.ContentSchema, err = one()
	case "properties":
		s.Properties, err = mapOf()
	case "patternProperties":
		s.PatternProperties, err = mapOf()
	case "$defs":
		s.Defs, err = mapOf()
	case "definitions":
		s.Definitions, err = mapOf()
	case "dependentSchemas":
		s.DependentSchemas, err = mapOf()
	case "dependencies":
		var m map[string]*jsonschema.Schema
		if m, err = mapOf(); len(m) > 0 {
			s.DependencySchemas = m
		}
	case "allOf":
		s.AllOf, err = listOf()
	case "anyOf":
		s.AnyOf, err = listOf()
	case "oneOf":
		s.OneOf, err = listOf()
	case "prefixItems":
		s.PrefixItems, err = listOf()
	}
	return err
}

func noLoader(u *url.URL) (*jsonschema.Schema, error) {
	return nil, fmt.Errorf("references outside the schema are not supported: %s", u)
}

// Decode reads one JSON value, numbers as json.Number so that they are
// passed on as they were written.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// Problem is one thing wrong with a value: where (a JSON pointer, "" for
// the whole value) and what.
type Problem struct {
	At      string
	Message string
}

func (p Problem) String() string { return orRoot(p.At) + ": " + p.Message }

// Error lists what is wrong with a value, one problem a part, in the order
// of their pointers. More says that problems past the first few were left
// out.
type Error struct {
	Problems []Problem
	More     bool
}

func (e *Error) Error() string {
	msgs := make([]string, 0, len(e.Problems)+1)
	for _, p := range e.Problems {
		msgs = append(msgs, p.String())
	}
	if e.More {
		msgs = append(msgs, MoreText)
	}
	return strings.Join(msgs, "; ")
}

// MoreText says that not every problem is listed: the first maxFindings
// are.
const MoreText = "and more (the first 20 problems are shown)"

// Check validates v, a value from Decode; the error is an *Error.
// listFields says whether an unknown property's problem lists the accepted
// ones: useful to a model that misspelt a name, noise about a default
// written by hand.
func (a *Schema) Check(v any, listFields bool) error {
	inst, perr := numbers(v, "")
	if perr != nil {
		return &Error{Problems: []Problem{*perr}}
	}
	err := a.resolved.Validate(inst)
	if err == nil {
		return nil
	}
	d := &describer{root: a.root, whole: err, listFields: listFields}
	d.node(a.root, inst, "")
	if len(d.problems) == 0 {
		d.add("", libraryText(err))
	}
	slices.SortFunc(d.problems, func(x, y Problem) int { return strings.Compare(x.String(), y.String()) })
	return &Error{Problems: slices.Compact(d.problems), More: d.more}
}

// Numbers is v, a value from Decode, with its numbers as the validator
// takes them; an error for a number too large to compare.
func Numbers(v any) (any, error) {
	out, p := numbers(v, "")
	if p != nil {
		return nil, &Error{Problems: []Problem{*p}}
	}
	return out, nil
}

// numbers returns a copy of v with json.Number replaced by int64
// or float64, the numbers the validator understands (it takes a
// json.Number for a string). A number too large for a float64 cannot be
// compared with anything and is refused.
func numbers(v any, at string) (any, *Problem) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, &Problem{At: at, Message: fmt.Sprintf("the number %s is too large", x)}
		}
		return f, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := numbers(e, at+"/"+EscapePointer(k))
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := numbers(e, at+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// describer walks a value that failed validation alongside its schema and
// collects one message per offending field. It follows the keywords that
// give a value's parts their schemas (properties, items, required,
// additionalProperties, allOf, local $refs) itself, so that every bad field
// is named by its JSON pointer, and asks the library about the rest of each
// schema.
type describer struct {
	root       *jsonschema.Schema
	whole      error // the library's verdict on the whole value
	listFields bool
	problems   []Problem
	more       bool // problems past maxFindings were left out
	refs       int  // $refs followed for the value being described
	// locals and resolved keep each part's local schema and its
	// resolution: the items of a long array share one.
	locals   map[*jsonschema.Schema]*jsonschema.Schema
	resolved map[*jsonschema.Schema]*jsonschema.Resolved
}

// maxRefs bounds the $refs followed without moving into the value: a
// schema that refers to itself ({"$ref": "#"}) would never end.
const maxRefs = 32

// maxFindings bounds the problems described: a model that sent ten
// thousand bad items learns enough from the first few.
const maxFindings = 20

func (d *describer) add(at, msg string) {
	if len(d.problems) >= maxFindings {
		d.more = true
		return
	}
	d.problems = append(d.problems, Problem{At: at, Message: msg})
}

func (d *describer) node(s *jsonschema.Schema, v any, at string) {
	if len(d.problems) >= maxFindings {
		d.more = true
		return
	}
	if s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil {
		// What these accept depends on every keyword at once: ask about
		// the schema as a whole.
		err := d.validate(s, v)
		if err == nil {
			return
		}
		if obj, ok := v.(map[string]any); ok && len(s.PatternProperties) == 0 && s.UnevaluatedProperties != nil && IsFalse(s.UnevaluatedProperties) &&
			strings.Contains(err.Error(), "/unevaluatedProperties") {
			// Most often the properties not listed; the library does
			// not say which it found.
			n := len(d.problems)
			d.object(&jsonschema.Schema{Properties: s.Properties, AdditionalProperties: s.UnevaluatedProperties}, obj, at)
			if len(d.problems) > n {
				return
			}
		}
		d.add(at, word(err, nil, v))
		return
	}
	ref := d.deref(s.Ref)
	local := d.local(s, ref != nil)
	if err := d.validate(local, v); err != nil {
		d.add(at, word(err, local, v))
		return
	}
	if ref != nil && d.refs < maxRefs {
		d.refs++
		d.node(ref, v, at)
		d.refs--
	}
	for _, sub := range s.AllOf {
		d.node(sub, v, at)
	}
	saved := d.refs
	d.refs = 0
	defer func() { d.refs = saved }()
	switch x := v.(type) {
	case map[string]any:
		d.object(s, x, at)
	case []any:
		for i, e := range x {
			switch {
			case i < len(s.PrefixItems):
				d.node(s.PrefixItems[i], e, at+"/"+strconv.Itoa(i))
			case i < len(s.ItemsArray): // draft-07's tuple
				d.node(s.ItemsArray[i], e, at+"/"+strconv.Itoa(i))
			case len(s.ItemsArray) > 0 && s.AdditionalItems != nil:
				d.node(s.AdditionalItems, e, at+"/"+strconv.Itoa(i))
			case s.Items != nil:
				d.node(s.Items, e, at+"/"+strconv.Itoa(i))
			}
		}
	}
}

func (d *describer) object(s *jsonschema.Schema, obj map[string]any, at string) {
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			d.add(at+"/"+EscapePointer(name), "missing required property")
		}
	}
	for name, val := range obj {
		if ps, ok := s.Properties[name]; ok {
			d.node(ps, val, at+"/"+EscapePointer(name))
			continue
		}
		if s.AdditionalProperties == nil || len(s.PatternProperties) > 0 {
			continue // patternProperties are in the local schema
		}
		if !IsFalse(s.AdditionalProperties) {
			d.node(s.AdditionalProperties, val, at+"/"+EscapePointer(name))
			continue
		}
		msg := "unknown property"
		if d.listFields {
			if len(s.Properties) == 0 {
				msg += " (this object takes no properties)"
			} else {
				names := make([]string, 0, len(s.Properties))
				for n := range s.Properties {
					names = append(names, n)
				}
				slices.Sort(names)
				msg += " (accepted: " + strings.Join(names, ", ") + ")"
			}
		}
		d.add(at+"/"+EscapePointer(name), msg)
	}
}

// local is s without the keywords the describer follows itself.
func (d *describer) local(s *jsonschema.Schema, followsRef bool) *jsonschema.Schema {
	if l, ok := d.locals[s]; ok {
		return l
	}
	c := *s
	c.Properties, c.Required, c.AllOf, c.PrefixItems, c.Items = nil, nil, nil, nil, nil
	if len(s.ItemsArray) > 0 {
		// additionalItems says what follows the tuple: without it, the
		// library would hold every item to it.
		c.ItemsArray, c.AdditionalItems = nil, nil
	}
	if len(s.PatternProperties) == 0 {
		c.AdditionalProperties = nil
	}
	if followsRef {
		c.Ref = ""
	}
	if s != d.root {
		// $defs are reached through the root, from which references are
		// resolved; a part checked on its own resolves none.
		c.Defs, c.Definitions = nil, nil
	}
	if d.locals == nil {
		d.locals = map[*jsonschema.Schema]*jsonschema.Schema{}
	}
	d.locals[s] = &c
	return &c
}

// validate checks v against s as a schema of its own. A part that refers
// to elsewhere in the document cannot be checked alone and passes here:
// if nothing else is found, check words the library's verdict instead.
func (d *describer) validate(s *jsonschema.Schema, v any) error {
	if s == d.root {
		return d.whole
	}
	rs, ok := d.resolved[s]
	if !ok {
		rs, _ = s.Resolve(&jsonschema.ResolveOptions{Loader: noLoader}) // nil when it cannot be
		if d.resolved == nil {
			d.resolved = map[*jsonschema.Schema]*jsonschema.Resolved{}
		}
		d.resolved[s] = rs
	}
	if rs == nil {
		return nil
	}
	return rs.Validate(v)
}

// deref finds the part of the document a local reference ("#/$defs/x")
// points to, or nil.
func (d *describer) deref(ref string) *jsonschema.Schema {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	cur := d.root
	toks := strings.Split(ptr, "/")[1:]
	for i := 0; i < len(toks) && cur != nil; i++ {
		next := func() string {
			i++
			if i >= len(toks) {
				return ""
			}
			return strings.NewReplacer("~1", "/", "~0", "~").Replace(toks[i])
		}
		switch toks[i] {
		case "$defs":
			cur = cur.Defs[next()]
		case "definitions":
			cur = cur.Definitions[next()]
		case "properties":
			cur = cur.Properties[next()]
		case "items":
			cur = cur.Items
		case "additionalProperties":
			cur = cur.AdditionalProperties
		default:
			return nil
		}
	}
	return cur
}

// word turns the library's account of one failed keyword of s into the
// short form the model reads: "got number, want string", "maximum: got 99,
// want 50". The library's own words are kept for the keywords without one.
func word(err error, s *jsonschema.Schema, v any) string {
	text := innermost(err)
	keyword, detail, _ := strings.Cut(text, ": ")
	switch keyword {
	case "type":
		if m := typeText().FindStringSubmatch(detail); m != nil {
			return "got " + jsonKind(v) + ", want " + strings.ReplaceAll(m[1], ", ", " or ")
		}
	case "enum":
		if s != nil && s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonschema.Equal(e, v) }) {
			want := make([]string, len(s.Enum))
			for i, w := range s.Enum {
				want[i] = jsonText(w)
			}
			return jsonText(v) + " is not one of " + strings.Join(want, ", ")
		}
	case "minLength", "maxLength":
		if str, ok := v.(string); ok {
			return fmt.Sprintf("%s: got %d, want %s", keyword, utf8.RuneCountInString(str), lastNumber(detail))
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return fmt.Sprintf("%s: got %s, want %s", keyword, jsonText(v), lastNumber(detail))
	case "multipleOf":
		return fmt.Sprintf("multipleOf: %s is not a multiple of %s", jsonText(v), lastNumber(detail))
	case "minItems", "maxItems":
		if arr, ok := v.([]any); ok {
			return fmt.Sprintf("%s: got %d, want %s", keyword, len(arr), lastNumber(detail))
		}
	case "minProperties", "maxProperties":
		if obj, ok := v.(map[string]any); ok {
			return fmt.Sprintf("%s: got %d, want %s", keyword, len(obj), lastNumber(detail))
		}
	}
	return oneLine(text)
}

// typeText is the library's "type" failure: what was wanted, one type or
// several joined by ", ".
var typeText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`has type "[a-z]+", want (?:one of )?"([a-z, ]+)"$`) })

// innermost is the library's message for the keyword that failed, without
// the "validating <schema>: " it wraps it in at each level.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// libraryText is the library's whole account of a failure, on one line.
func libraryText(err error) string {
	return oneLine(innermost(err))
}

// lastNumber is the bound a keyword's message ends with, as JSON writes it
// (the library prints float bounds as 50.000000).
func lastNumber(detail string) string {
	fields := strings.Fields(detail)
	if len(fields) == 0 {
		return detail
	}
	last := fields[len(fields)-1]
	if f, err := strconv.ParseFloat(last, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return last
}

// jsonKind is the JSON type of a checked value, as a schema's "type" names
// it (an integer is a number here, as the value's own type).
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// IsFalse reports the schema false, which the library reads as
// {"not": {}}; the test is the one it makes itself.
func IsFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

func orRoot(at string) string {
	if at == "" {
		return "(value)"
	}
	return at
}

// EscapePointer escapes one token of a JSON pointer (RFC 6901).
func EscapePointer(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

// False is the schema false, in the form the library reads it.
func False() *jsonschema.Schema {
	return &jsonschema.Schema{Not: &jsonschema.Schema{}}
}

// TypeName is the JSON type of a value from Decode, with its article: "a
// string", "an object"; null is "null".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

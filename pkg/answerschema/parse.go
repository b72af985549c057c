package answerschema

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentloop/agentloop/internal/schemacheck"
)

// Schema is the schema an answer must match, as the user gave it. It is
// the one that checks the answer, whatever form of it an API is sent.
type Schema struct {
	tree  *node
	raw   []byte
	check *schemacheck.Schema
	// file is the path it was read from, or "".
	file string
	form Form
}

// Form is how a schema was given.
type Form string

// The forms of a schema.
const (
	FormFile    Form = "file"    // a JSON Schema file
	FormJSON    Form = "json"    // a JSON Schema written out inline
	FormConcise Form = "concise" // llm's concise form
)

// MaxFileSize bounds a schema file: a schema a model can follow is far
// smaller, and a path that names something else ends early.
const MaxFileSize = 1 << 20

// Error is a schema that cannot be used, with where the mistake is: the
// file's line and column, or for a schema given inline the line and
// column of the text (its column only, when it is one line).
type Error struct {
	File         string // the schema file, or "" for a schema given inline
	Line, Column int    // 1-based; 0 when the mistake has no one place
	oneLine      bool
	Msg          string
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	case e.Line == 0:
		return e.Msg
	case e.oneLine:
		return fmt.Sprintf("column %d: %s", e.Column, e.Msg)
	}
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Parse reads SCHEMA: inline JSON when it starts with "{"; else the file
// it names, when there is one; else, when it has a space, a comma, a colon
// or a newline, llm's concise form ("verdict, score int, reasons: why").
// A single word that names no file is refused: it is more often a mistyped
// path than a schema of one field; so is a name ending in .json, and a URL
// (which llm's form would read as a field "http").
func Parse(arg string) (*Schema, error) {
	text := strings.TrimSpace(arg)
	switch {
	case text == "":
		return nil, &Error{Msg: "the schema is empty: give a JSON Schema file, a JSON Schema written out ({...}), or fields such as 'verdict, score int'"}
	case text[0] == '{':
		return FromJSON([]byte(arg), "")
	}
	if st, err := os.Stat(arg); err == nil {
		if st.IsDir() {
			return nil, &Error{File: arg, Msg: "is a folder, not a JSON Schema file"}
		}
		return Load(arg)
	}
	oneLine := !strings.Contains(text, "\n")
	switch {
	case oneLine && strings.Contains(text, "://"):
		return nil, &Error{File: arg, Msg: "a schema is read from a file or given inline, never fetched: download it and give the file"}
	case oneLine && strings.HasSuffix(strings.ToLower(text), ".json"):
		return nil, &Error{File: arg, Msg: "no such file"}
	case strings.ContainsAny(text, ",:") || strings.ContainsFunc(text, isSpace):
		return FromConcise(arg)
	}
	return nil, &Error{File: arg, Msg: fmt.Sprintf("no such file; a schema of one field says its type too ('%s str')", text)}
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// Load reads a JSON Schema file.
func Load(path string) (*Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d KiB: not a schema a model can follow", MaxFileSize>>10)}
	}
	s, err := FromJSON(data, path)
	if err != nil {
		return nil, err
	}
	s.form = FormFile
	return s, nil
}

// FromJSON reads a JSON Schema document; file names where it was read
// from ("" when it was given inline), for the errors. The document is
// checked against the meta-schema of its draft: a mistake in it is an
// error at its line, not a failure of every answer.
func FromJSON(data []byte, file string) (*Schema, error) {
	text := string(data)
	at := func(offset int64, msg string) *Error {
		line, col := position(text, int(offset))
		return &Error{File: file, Line: line, Column: col, oneLine: !strings.Contains(text, "\n"), Msg: msg}
	}
	tree, err := decodeTree(data)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, at(se.offset, "not JSON: "+se.msg)
		}
		return nil, &Error{File: file, Msg: "not JSON: " + err.Error()}
	}
	if tree.kind != '{' {
		return nil, at(offsetOf(data, ""), "a JSON Schema is an object ({...}), got "+kindName(tree))
	}
	doc, err := schemacheck.Decode(data)
	if err != nil {
		return nil, &Error{File: file, Msg: "not JSON: " + err.Error()}
	}
	if err := schemacheck.CheckDoc(doc.(map[string]any)); err != nil {
		var e *schemacheck.Error
		if errors.As(err, &e) && len(e.Problems) > 0 {
			p := e.Problems[0]
			return nil, at(offsetOf(data, p.At), "not a valid JSON Schema: "+p.String())
		}
		return nil, &Error{File: file, Msg: "not a valid JSON Schema: " + err.Error()}
	}
	check, err := schemacheck.Compile(doc)
	if err != nil {
		return nil, &Error{File: file, Msg: "not a valid JSON Schema: " + strings.Join(strings.Fields(err.Error()), " ")}
	}
	return &Schema{tree: tree, raw: tree.bytes(), check: check, file: file, form: FormJSON}, nil
}

// FromConcise reads llm's concise form.
func FromConcise(text string) (*Schema, error) {
	tree, err := parseConcise(text)
	if err != nil {
		var ce *conciseError
		if !errors.As(err, &ce) {
			return nil, err
		}
		line, col := position(text, ce.offset)
		return nil, &Error{Line: line, Column: col, oneLine: !strings.Contains(text, "\n"), Msg: ce.msg}
	}
	return fromTree(tree, FormConcise)
}

// fromTree is the Schema of a schema built here.
func fromTree(tree *node, form Form) (*Schema, error) {
	raw := tree.bytes()
	doc, err := schemacheck.Decode(raw)
	if err != nil {
		return nil, err
	}
	check, err := schemacheck.Compile(doc)
	if err != nil {
		return nil, err
	}
	return &Schema{tree: tree, raw: raw, check: check, form: form}, nil
}

// Multi is the schema of a list of answers of s, as llm's --schema-multi
// asks for one (llm/utils.py multi_schema): an object whose "items" holds
// them. A model answers an object more reliably than a bare list. The
// schema's definitions ($defs, definitions) and $schema move to the new
// top, and its references to its own parts are made to point where they
// now are, so that the wrapped schema means what it did.
func (s *Schema) Multi() (*Schema, error) {
	inner := s.tree.clone()
	w := multi(inner)
	for _, k := range []string{"definitions", "$defs", "$schema"} {
		if v := inner.get(k); v != nil {
			inner.del(k)
			rebase(v, "#/properties/items/items", 0)
			w.members = append([]member{{k, v}}, w.members...)
		}
	}
	rebase(inner, "#/properties/items/items", 0)
	m, err := fromTree(w, s.form)
	if err != nil {
		return nil, err
	}
	m.file = s.file
	return m, nil
}

// rebase points the references of n that name a part of the old top
// (not its definitions) to where the old top now is.
func rebase(n *node, to string, depth int) {
	if n == nil || depth > maxNesting {
		return
	}
	for i, m := range n.members {
		if ref, ok := m.val.str(); ok && m.key == "$ref" {
			if ref == "#" || strings.HasPrefix(ref, "#/") && !strings.HasPrefix(ref, "#/$defs/") && !strings.HasPrefix(ref, "#/definitions/") {
				n.members[i].val = strNode(to + ref[1:])
			}
			continue
		}
		rebase(m.val, to, depth+1)
	}
	for _, it := range n.items {
		rebase(it, to, depth+1)
	}
}

// JSON is the schema as compact JSON, its members in the order written:
// what a transcript records.
func (s *Schema) JSON() []byte { return s.raw }

// Form says how the schema was given.
func (s *Schema) Form() Form { return s.form }

// File is the path the schema was read from, or "".
func (s *Schema) File() string { return s.file }

func kindName(n *node) string {
	switch {
	case n.kind == '[':
		return "an array"
	case n.isNull():
		return "null"
	case n.isTrue(), n.isFalse():
		return "a boolean"
	case n.lit[0] == '"':
		return "a string"
	}
	return "a number"
}

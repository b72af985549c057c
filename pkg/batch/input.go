package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentloop/agentloop/pkg/answerschema"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/suggest"
)

// Item is one prompt of a batch.
type Item struct {
	// ID names the item in the results and its transcript's file; the
	// line number for a plain-text input.
	ID string
	// Line is the input line the item is on.
	Line   int
	Prompt string
	// System, Model and MaxSteps, when set, replace the batch's own.
	System   string
	Model    string
	MaxSteps int
	// Stdin is context given with the prompt, as `agentloop run` appends
	// what it reads on stdin.
	Stdin string
	// Metadata is carried to the item's result as it is.
	Metadata json.RawMessage
	// Schema, when set, replaces the batch's --schema: the item's answer
	// must match it.
	Schema *answerschema.Schema
}

// Format is how an input file is written.
type Format string

// Input formats.
const (
	FormatAuto  Format = ""      // by the file's extension, else by its first line
	FormatJSONL Format = "jsonl" // one JSON object a line
	FormatText  Format = "text"  // one prompt a line
)

// MaxLine bounds an input line: a prompt larger than `agentloop run` takes
// on stdin is a mistake.
const MaxLine = 16 << 20

// fields are the keys of a JSONL item.
var fields = []string{"id", "prompt", "system", "model", "max_steps", "stdin", "metadata", "schema"}

// Problem is one thing wrong with an input file, at a line.
type Problem struct {
	Line int
	Msg  string
}

// InputError lists every problem of an input file, in line order.
type InputError struct {
	Name     string
	Problems []Problem
}

func (e *InputError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = fmt.Sprintf("%s:%d: %s", e.Name, p.Line, p.Msg)
	}
	return strings.Join(lines, "\n")
}

// ReadInput reads the items of an input file. Blank lines are skipped. name
// is the file's name, for messages and to choose the format when it is
// FormatAuto (.jsonl, .ndjson and .json are JSONL, .txt is text, and any
// other file is JSONL when its first line starts with "{"). Every problem
// of the file is reported at once, as an *InputError: bad JSON, unknown
// fields, empty prompts, duplicate ids.
func ReadInput(r io.Reader, name string, format Format) ([]Item, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		items []Item
		probs []Problem
		first = true
	)
	seen := map[string]int{} // id → line
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err == io.EOF && line == nil {
			break
		}
		if errors.Is(err, errLongLine) {
			probs = append(probs, Problem{n, fmt.Sprintf("the line is longer than %d MiB", MaxLine>>20)})
			continue
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read %s: %w", name, bare(err))
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if first {
			format, first = detect(name, format, line), false
			if format == FormatJSONL && bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
				// A JSON array of items, as eval sets often are: every
				// line of it would be a problem of its own.
				return nil, &InputError{Name: name, Problems: []Problem{{n, fmt.Sprintf("a JSON array, not JSONL: write one item a line (jq -c '.[]' %s makes it so)", name)}}}
			}
		}
		it, msg := parseLine(format, line, n)
		if msg != "" {
			probs = append(probs, Problem{n, msg})
			continue
		}
		if at, dup := seen[it.ID]; dup {
			probs = append(probs, Problem{n, fmt.Sprintf("duplicate id %s (first on line %d)", strconv.Quote(it.ID), at)})
			continue
		}
		seen[it.ID] = n
		items = append(items, it)
	}
	if len(probs) > 0 {
		return nil, &InputError{Name: name, Problems: probs}
	}
	if len(items) == 0 {
		return nil, &InputError{Name: name, Problems: []Problem{{1, "no items: the file holds no prompt"}}}
	}
	return items, nil
}

var errLongLine = errors.New("line too long")

// readLine reads one line without its end, at most MaxLine bytes; a longer
// one is skipped and reported.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine+2 {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			return []byte{}, errLongLine
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(line) == 0 {
			return nil, io.EOF
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if err == io.EOF {
			return line, nil
		}
		return line, err
	}
}

// detect picks the format of a file whose format is FormatAuto.
func detect(name string, f Format, first []byte) Format {
	if f != FormatAuto {
		return f
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".ndjson", ".json":
		return FormatJSONL
	case ".txt", ".text":
		return FormatText
	}
	if bytes.HasPrefix(bytes.TrimSpace(first), []byte("{")) {
		return FormatJSONL
	}
	return FormatText
}

// parseLine reads one non-blank line as an item; msg says what is wrong
// with it.
func parseLine(f Format, line []byte, n int) (it Item, msg string) {
	if i := bytes.IndexByte(line, 0); i >= 0 {
		return it, fmt.Sprintf("not text: NUL byte at column %d", i+1)
	}
	if !utf8.Valid(line) {
		return it, "not text: the line is not valid UTF-8"
	}
	it.Line, it.ID = n, strconv.Itoa(n)
	if f == FormatText {
		it.Prompt = strings.TrimSpace(string(line))
		return it, ""
	}
	if t := bytes.TrimSpace(line); t[0] != '{' && json.Valid(t) {
		return it, fmt.Sprintf(`not an item: want an object such as {"id": "a", "prompt": "…"}, got %s`, kindOf(t))
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&obj); err != nil {
		return it, "bad JSON: " + jsonError(err, line)
	}
	if dec.More() {
		return it, "bad JSON: more than one value on the line"
	}
	if k := twice(line); k != "" {
		// The decoder keeps the last; the writer of the line may have
		// meant the first.
		return it, fmt.Sprintf("%s is given twice: which one is meant is not guessed at", strconv.Quote(k))
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(fields, k) {
			return it, fmt.Sprintf("unknown field %s%s; carry other data in \"metadata\"", strconv.Quote(k), suggest.DidYouMean(k, fields))
		}
	}
	if raw, ok := obj["id"]; ok {
		id, err := idOf(raw)
		if err != "" {
			return it, err
		}
		it.ID = id
	}
	str := func(key string, dst *string) string {
		raw, ok := obj[key]
		if !ok || string(raw) == "null" {
			return ""
		}
		if json.Unmarshal(raw, dst) != nil {
			return fmt.Sprintf("%s must be a string, got %s", strconv.Quote(key), kindOf(raw))
		}
		return ""
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"prompt", &it.Prompt}, {"system", &it.System}, {"model", &it.Model}, {"stdin", &it.Stdin}} {
		if msg := str(f.key, f.dst); msg != "" {
			return it, msg
		}
	}
	if strings.TrimSpace(it.Prompt) == "" {
		return it, "empty prompt: \"prompt\" is missing or blank"
	}
	it.Prompt = strings.TrimSpace(it.Prompt)
	if raw, ok := obj["max_steps"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &it.MaxSteps); err != nil || it.MaxSteps <= 0 {
			return it, fmt.Sprintf("\"max_steps\" must be a whole number above 0, got %s", raw)
		}
	}
	if raw, ok := obj["metadata"]; ok && string(raw) != "null" {
		it.Metadata = raw
	}
	if raw, ok := obj["schema"]; ok && string(raw) != "null" {
		s, msg := schemaOf(raw)
		if msg != "" {
			return it, msg
		}
		it.Schema = s
	}
	return it, ""
}

// schemaOf reads an item's schema: a JSON Schema object, or a string as
// --schema takes it (a file, a JSON Schema written out, llm's concise
// form).
func schemaOf(raw json.RawMessage) (*answerschema.Schema, string) {
	var (
		s   *answerschema.Schema
		err error
	)
	switch t := bytes.TrimSpace(raw); t[0] {
	case '{':
		s, err = answerschema.FromJSON(t, "")
	case '"':
		var text string
		_ = json.Unmarshal(t, &text)
		s, err = answerschema.Parse(text)
	default:
		return nil, fmt.Sprintf("\"schema\" must be a JSON Schema object or a string as --schema takes it, got %s", kindOf(raw))
	}
	if err != nil {
		return nil, "\"schema\": " + err.Error()
	}
	return s, ""
}

// twice is a field an object line (valid JSON) holds more than once, or "".
func twice(line []byte) string {
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return ""
		}
		if seen[k] {
			return k
		}
		seen[k] = true
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return ""
		}
	}
	return ""
}

// idOf reads an id: a string, or a whole number written as its digits.
func idOf(raw json.RawMessage) (string, string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return "", `"id" is empty`
		}
		if !utf8.ValidString(s) {
			return "", `"id" is not valid UTF-8`
		}
		return s, ""
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if digits := strings.TrimPrefix(n.String(), "-"); strings.Trim(digits, "0123456789") == "" {
			return n.String(), ""
		}
		// A number, but not a whole one: say which.
		return "", fmt.Sprintf("\"id\" must be a string or a whole number, got %s", n)
	}
	return "", fmt.Sprintf("\"id\" must be a string or a whole number, got %s", kindOf(raw))
}

// kindOf names the JSON type of a value, for messages.
func kindOf(raw json.RawMessage) string {
	switch b := bytes.TrimSpace(raw); {
	case len(b) == 0:
		return "nothing"
	case b[0] == '"':
		return "a string"
	case b[0] == '{':
		return "an object"
	case b[0] == '[':
		return "an array"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	case b[0] == 'n':
		return "null"
	}
	return "a number"
}

// jsonError says where a line's JSON goes wrong.
func jsonError(err error, line []byte) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%v at column %d", syn, syn.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Sprintf("the line ends inside its JSON (column %d)", len(line)+1)
	}
	return err.Error()
}

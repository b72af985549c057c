// Package cassette reads VCR cassettes (YAML): vcrpy and pytest-recording
// (interactions: - request: {body, uri, method}, response: {status:
// {code}}), pydantic-ai's (parsed_body), go-vcr's (version: 2, request:
// {body, url}, response: {code}), Ruby's VCR (http_interactions: - request:
// {method, uri, body: {encoding, string}}). Every request body sent to a
// chat, messages or responses endpoint is checked as a request body of its
// own, named by the interaction it is in (interactions[N]), with the status
// the API answered. The file is read an interaction at a time.
package cassette

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/linereader"
)

// Name is the format's name.
const Name = "vcr"

// Format is the format of VCR cassettes.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "cassette", Writer: "vcrpy, pytest-recording, go-vcr, Ruby's VCR",
		Example: "tests/cassettes/…/*.yaml, spec/fixtures/vcr_cassettes/*.yml"}
}

// Sniff knows a cassette by its top-level interactions (or
// http_interactions) key.
func (format) Sniff(h *check.Head) check.Confidence {
	if isCassette(h.Data) {
		return check.Certain
	}
	return check.No
}

func (format) Open(f *check.File) error { return cassette(f, f.LineReader()) }

// maxDepth is how deep a body written as YAML may nest, as encoding/json's
// limit.
const maxDepth = 10000

// cassetteKey returns the top-level key of a cassette's interactions on
// line: "interactions" (vcrpy, go-vcr), "http_interactions" (Ruby's VCR)
// or "requests" (LangChain's serializer, which writes the requests in one
// list and the responses in another); "" if the line starts no such key.
func cassetteKey(line []byte) string {
	for _, k := range []string{"interactions", "http_interactions", "requests"} {
		if bytes.HasPrefix(line, []byte(k+":")) {
			return k
		}
	}
	return ""
}

// isCassette tells a VCR cassette from its start: YAML whose top-level
// "interactions" (or "http_interactions") key appears in the first window,
// after an optional "---", comments and other top-level keys (go-vcr
// writes "version" first).
func isCassette(peek []byte) bool {
	for rest := peek; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimRight(line, " \t\r")
		switch {
		case len(line) == 0, line[0] == '#', string(line) == "---":
			continue
		case cassetteKey(line) != "":
			return true
		case line[0] == ' ' || line[0] == '-':
			continue // inside a key before interactions
		case bytes.IndexByte(line, ':') > 0 && line[0] != '{' && line[0] != '[' && line[0] != '"':
			continue // another top-level key
		default:
			return false
		}
	}
	return false
}

// cassette checks a VCR cassette. The file is read a line at a time and cut
// into its interactions, the items of the top-level "interactions"
// sequence, each parsed alone: memory is one interaction, whatever the
// number of them.
func cassette(f *check.File, lr *linereader.Reader) error {
	var item []byte
	itemLine, indent, index, big := 0, -1, 0, false
	inSeq, done, key := false, false, ""
	flush := func() {
		if itemLine > 0 && !big {
			interaction(f, item, itemLine, fmt.Sprintf("%s[%d]", key, index), key == "requests")
		}
		if itemLine > 0 {
			index++
		}
		item, itemLine, big = item[:0], 0, false
	}
	for count := 0; ; count++ {
		if count&255 == 0 && f.Interrupted() {
			return f.Err()
		}
		text, n, _, err := lr.Next()
		if err == io.EOF {
			break
		}
		if _, ok := err.(*linereader.TooLongError); ok {
			if inSeq && itemLine > 0 && !big {
				big = true
				f.TooLong(n, fmt.Sprintf("line %d, in %s[%d],", n, key, index))
			}
			continue
		}
		if err != nil {
			if err := f.ReadError(err); err != nil {
				return err
			}
			return nil
		}
		if done {
			continue
		}
		if !inSeq {
			key = cassetteKey(text)
			inSeq = key != ""
			continue
		}
		trimmed := bytes.TrimLeft(text, " ")
		if len(bytes.TrimSpace(trimmed)) == 0 || trimmed[0] == '#' {
			if itemLine > 0 {
				item = append(item, '\n')
			}
			continue
		}
		ind := len(text) - len(trimmed)
		dash := trimmed[0] == '-' && (len(trimmed) == 1 || trimmed[1] == ' ')
		if indent < 0 {
			if !dash {
				done = true // not a block sequence ("interactions: []")
				continue
			}
			indent = ind
		}
		switch {
		case ind == indent && dash:
			flush()
			itemLine = n
		case ind < indent, ind == indent && !dash:
			flush()
			done = true
			continue
		}
		if big {
			continue
		}
		if f.Options().MaxLine > 0 && len(item)+len(text) > 4*f.Options().MaxLine {
			big = true
			f.TooLong(itemLine, fmt.Sprintf("%s[%d] (from line %d)", key, index, itemLine))
			continue
		}
		item = append(item, text[indent:]...)
		item = append(item, '\n')
	}
	flush()
	f.NoBodies("interaction", index)
	return nil
}

// interaction checks one item of a cassette's interactions, whose first
// line is line; where names it ("interactions[2]").
func interaction(f *check.File, text []byte, line int, where string, bare bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		f.Finding(line, check.Error, "not-yaml", "%s is not YAML: %s", where, strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.SequenceNode || len(doc.Content[0].Content) == 0 {
		return
	}
	it := doc.Content[0].Content[0]
	req, resp := mapValue(it, "request"), mapValue(it, "response")
	if bare {
		// LangChain's: the item is the request; its response, in the
		// responses list after all the requests, is not read.
		req, resp = it, nil
	}
	if req == nil {
		return
	}
	url := scalarValue(mapValue(req, "uri"))
	if url == "" {
		url = scalarValue(mapValue(req, "url"))
	}
	method := scalarValue(mapValue(req, "method"))
	if !strings.EqualFold(method, "POST") {
		return
	}
	bodyKey, bodyNode := mapEntry(req, "parsed_body")
	if bodyNode == nil {
		bodyKey, bodyNode = mapEntry(req, "body")
	}
	if bodyNode == nil {
		return
	}
	body, err := yamlBody(bodyNode)
	switch {
	case err != nil:
		if check.ChatEndpoint(url) {
			f.Finding(line+bodyKey.Line-1, check.Error, "not-yaml", "%s: request body: %v", where, err)
		}
		return
	case body == nil:
		return
	}
	f.RecordedRequest(where, method, url, body, line+bodyKey.Line-1, responseStatus(resp))
}

// responseStatus reads a recorded response's status: vcrpy's
// status: {code: 200}, or go-vcr's code: 200 (and status: "200 OK").
func responseStatus(resp *yaml.Node) int {
	if resp == nil {
		return 0
	}
	st := mapValue(resp, "status")
	if c := mapValue(st, "code"); c != nil {
		n, _ := strconv.Atoi(c.Value)
		return n
	}
	if c := mapValue(resp, "code"); c != nil {
		n, _ := strconv.Atoi(c.Value)
		return n
	}
	if s := scalarValue(st); s != "" {
		n, _ := strconv.Atoi(strings.Fields(s)[0])
		return n
	}
	return 0
}

// yamlBody turns a recorded request body into its JSON bytes: a string
// (vcrpy, go-vcr), {string: …} (older vcrpy), {encoding, string} or
// {encoding, base64_string} (Ruby's VCR), !!binary (base64, maybe
// gzipped), or the parsed JSON written as YAML (pydantic-ai's parsed_body).
// nil for no body.
func yamlBody(n *yaml.Node) ([]byte, error) {
	if n.Kind == yaml.MappingNode {
		enc := mapValue(n, "encoding")
		keys := 1
		if enc != nil {
			keys = 2
		}
		if s := mapValue(n, "string"); s != nil && len(n.Content) == 2*keys {
			return yamlBody(s)
		}
		if s := mapValue(n, "base64_string"); s != nil && enc != nil && len(n.Content) == 4 && s.Kind == yaml.ScalarNode {
			raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s.Value), ""))
			if err != nil {
				return nil, fmt.Errorf("base64_string that is not base64: %w", err)
			}
			return raw, nil
		}
	}
	if n.Kind != yaml.ScalarNode {
		return yamlJSON(nil, n, 0)
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!binary":
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			return nil, fmt.Errorf("!!binary that is not base64: %w", err)
		}
		if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				return nil, err
			}
			// A body is not worth more than 256 MiB of memory.
			return io.ReadAll(io.LimitReader(zr, 256<<20))
		}
		return raw, nil
	}
	return []byte(n.Value), nil
}

// yamlJSON writes a YAML node as JSON, keeping the order of keys.
func yamlJSON(b []byte, n *yaml.Node, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return append(b, "null"...), nil
		}
		return yamlJSON(b, n.Content[0], depth+1)
	case yaml.MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b = append(append(b, k...), ':')
			var err error
			if b, err = yamlJSON(b, n.Content[i+1], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = yamlJSON(b, c, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case yaml.AliasNode:
		return nil, errors.New("YAML aliases are not read in request bodies")
	}
	switch n.ShortTag() {
	case "!!null":
		return append(b, "null"...), nil
	case "!!bool":
		var x bool
		if err := n.Decode(&x); err != nil {
			return nil, err
		}
		return strconv.AppendBool(b, x), nil
	case "!!int", "!!float":
		var x json.Number
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, err
		}
		if _, err := strconv.ParseFloat(n.Value, 64); err == nil && json.Valid([]byte(n.Value)) {
			x = json.Number(n.Value)
		} else {
			x = json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return append(b, x...), nil
	}
	s, _ := json.Marshal(n.Value)
	return append(b, s...), nil
}

// mapEntry finds key in a YAML mapping and returns its key and value nodes.
func mapEntry(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	_, v := mapEntry(m, key)
	return v
}

func scalarValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

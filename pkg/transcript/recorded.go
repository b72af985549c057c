package transcript

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
)

// Recorded HTTP traffic: VCR cassettes (vcrpy, pytest-recording, go-vcr,
// Ruby's VCR) and HTTP Archives. Every request body sent to a chat, messages or
// responses endpoint is checked as a request body of its own, named by
// the interaction (or entry) it is in, with the status the API answered.

// chatEndpoint reports whether a request to url carries a conversation:
// Chat Completions, Anthropic Messages (and its token counting), Responses.
func chatEndpoint(url string) bool {
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		url = url[:i]
	}
	url = strings.TrimSuffix(url, "/")
	if strings.Contains(url, "/threads/") {
		return false // the Assistants API's messages of a thread
	}
	for _, p := range []string{"/chat/completions", "/messages", "/messages/count_tokens", "/responses"} {
		if strings.HasSuffix(url, p) {
			return true
		}
	}
	return false
}

// checkBody checks one recorded request body, where names it in findings
// ("interactions[2]"), line is where it starts, status what the API
// answered (0 if not recorded).
func (v *validator) checkBody(where string, body []byte, line, status int) {
	saved := v.sc
	v.sc = v.bodySc
	v.sc.arena = v.sc.arena[:0]
	v.bodyOf, v.status = where, status
	v.conversationLine(body, line, true)
	v.bodyOf, v.status = "", 0
	v.bodySc = v.sc
	v.sc = saved
	v.bodies++
}

// noBodies says why a recording had nothing to check.
func (v *validator) noBodies(what string, n int) {
	if v.bodies == 0 {
		v.noConv = fmt.Sprintf("no request to a chat, messages or responses endpoint among the %d %s%s of this %s",
			n, what, plural(n, "", "s"), formatName(v.format))
	}
}

// harEntry checks entry i of a HAR file's log.entries, read a key at a
// time: the request whole, of the response only its status.
func (v *validator) harEntry(st *stream, line, i int) error {
	v.recorded++
	if st.peek() != '{' {
		return v.skipValue(st)
	}
	st.consume()
	var method, url string
	body := v.bodyBuf[:0]
	hasBody, status, bodyLine := false, 0, line
	err := v.walkObject(st, func(key string, k byte, kline int) (bool, error) {
		switch {
		case key == "request" && k == kindObject:
			ok, err := v.captureValue(st)
			if err != nil {
				return true, err
			}
			if !ok {
				v.tooLong(kline, fmt.Sprintf("entries[%d].request (from line %d)", i, kline))
				return true, nil
			}
			var text []byte
			method, url, text, hasBody = harRequest(&v.sc)
			if hasBody {
				body = append(body, text...)
				bodyLine = kline + bytes.Count(v.sc.d[:v.sc.i], []byte{'\n'})
			}
			return true, nil
		case key == "response" && k == kindObject:
			st.consume()
			return true, v.walkObject(st, func(key string, k byte, _ int) (bool, error) {
				if key != "status" || k != kindNumber {
					return false, nil
				}
				ok, err := v.captureValue(st)
				if ok {
					status, _ = strconv.Atoi(string(bytes.TrimSpace(v.sc.d)))
				}
				return true, err
			})
		}
		return false, nil
	})
	v.bodyBuf = body
	if err != nil {
		return err
	}
	if hasBody && strings.EqualFold(method, "POST") && chatEndpoint(url) {
		v.checkBody(fmt.Sprintf("entries[%d]", i), body, bodyLine, status)
	}
	return nil
}

// harRequest reads a HAR request object: method, url and postData.text,
// decoded. s is left just after the text, or at the end.
func harRequest(s *scanner) (method, url string, text []byte, hasText bool) {
	s.enter('{')
	for n := 0; s.next('}', &n); {
		switch string(s.key()) {
		case "method":
			method = string(s.stringOrSkip())
		case "url":
			url = string(s.stringOrSkip())
		case "postData":
			if s.peekKind() != kindObject {
				s.skip()
				continue
			}
			s.enter('{')
			for m := 0; s.next('}', &m); {
				if string(s.key()) == "text" && s.peekKind() == kindString {
					text, hasText = s.text(), true
					if method != "" && url != "" {
						return // the line of the text is where s stands
					}
					continue
				}
				s.skip()
			}
		default:
			s.skip()
		}
	}
	return
}

// cassetteKey returns the top-level key of a cassette's interactions on
// line: "interactions" (vcrpy, go-vcr) or "http_interactions" (Ruby's
// VCR); "" if the line starts no such key.
func cassetteKey(line []byte) string {
	for _, k := range []string{"interactions", "http_interactions"} {
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
func (v *validator) cassette(lr *LineReader) error {
	var item []byte
	itemLine, indent, index, big := 0, -1, 0, false
	inSeq, done, key := false, false, ""
	flush := func() {
		if itemLine > 0 && !big {
			v.interaction(item, itemLine, fmt.Sprintf("%s[%d]", key, index))
		}
		if itemLine > 0 {
			index++
		}
		item, itemLine, big = item[:0], 0, false
	}
	for count := 0; ; count++ {
		if count&255 == 0 && v.interrupted() {
			return v.ctx.Err()
		}
		text, n, _, err := lr.Next()
		if err == io.EOF {
			break
		}
		if _, ok := err.(*LineTooLongError); ok {
			if inSeq && itemLine > 0 && !big {
				big = true
				v.tooLong(n, fmt.Sprintf("line %d, in %s[%d],", n, key, index))
			}
			continue
		}
		if err != nil {
			if err := v.readError(err); err != nil {
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
		if v.opts.MaxLine > 0 && len(item)+len(text) > 4*v.opts.MaxLine {
			big = true
			v.tooLong(itemLine, fmt.Sprintf("%s[%d] (from line %d)", key, index, itemLine))
			continue
		}
		item = append(item, text[indent:]...)
		item = append(item, '\n')
	}
	flush()
	v.noBodies("interaction", index)
	v.finishFile()
	return nil
}

// interaction checks one item of a cassette's interactions, whose first
// line is line; where names it ("interactions[2]").
func (v *validator) interaction(text []byte, line int, where string) {
	v.recorded++
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		v.fileFinding(line, Error, "not-yaml", "%s is not YAML: %s", where, strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.SequenceNode || len(doc.Content[0].Content) == 0 {
		return
	}
	it := doc.Content[0].Content[0]
	req, resp := mapValue(it, "request"), mapValue(it, "response")
	if req == nil {
		return
	}
	url := scalarValue(mapValue(req, "uri"))
	if url == "" {
		url = scalarValue(mapValue(req, "url"))
	}
	if !strings.EqualFold(scalarValue(mapValue(req, "method")), "POST") || !chatEndpoint(url) {
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
		v.fileFinding(line+bodyKey.Line-1, Error, "not-yaml", "%s: request body: %v", where, err)
		return
	case body == nil:
		return
	}
	v.checkBody(where, body, line+bodyKey.Line-1, responseStatus(resp))
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

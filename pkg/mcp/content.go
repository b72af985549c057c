package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// keepGoodContent makes a tool result the SDK can read whole out of one
// whose content holds bytes that are not valid base64 (an image's or
// audio's data, an embedded resource's blob): the SDK refuses the whole
// result for one such item, its text and its good images with it. Each
// bad item is replaced by a text saying what was dropped and why, in its
// place, so the model reads what is good and knows what is missing:
//
//	[image 2 of 3 dropped: not valid base64]
//
// result is the JSON-RPC result as the server sent it; it is returned as it
// is, and false, when nothing in it needs replacing (or it is not a tool
// result at all: the SDK says what is wrong with that).
func keepGoodContent(result json.RawMessage) (json.RawMessage, bool) {
	// Only content with bytes in it can hold bad base64: a result of text
	// alone costs one scan.
	if !bytes.Contains(result, []byte(`"content"`)) ||
		!bytes.Contains(result, []byte(`"data"`)) && !bytes.Contains(result, []byte(`"blob"`)) {
		return result, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil {
		return result, false
	}
	var items []json.RawMessage
	if json.Unmarshal(top["content"], &items) != nil {
		return result, false
	}
	// Keys are matched exactly, as the SDK matches them.
	fields := make([]map[string]json.RawMessage, len(items))
	count := map[string]int{}
	for i, it := range items {
		if json.Unmarshal(it, &fields[i]) != nil {
			return result, false // not an object: the SDK says so
		}
		count[kindOf(fields[i])]++
	}
	seen := map[string]int{}
	changed := false
	for i, f := range fields {
		kind := kindOf(f)
		seen[kind]++
		note := ""
		switch kind {
		case "image", "audio":
			if !validBase64(f["data"]) {
				note = fmt.Sprintf("[%s %d of %d dropped: not valid base64]", kind, seen[kind], count[kind])
			}
		case "resource":
			var r map[string]json.RawMessage
			if json.Unmarshal(f["resource"], &r) == nil && !validBase64(r["blob"]) {
				var uri string
				_ = json.Unmarshal(r["uri"], &uri)
				note = fmt.Sprintf("[resource %d of %d (<%s>) dropped: its blob is not valid base64]", seen[kind], count[kind], uri)
			}
		}
		if note == "" {
			continue
		}
		b, err := json.Marshal(map[string]string{"type": "text", "text": note})
		if err != nil {
			return result, false
		}
		items[i], changed = b, true
	}
	if !changed {
		return result, false
	}
	content, err := json.Marshal(items)
	if err != nil {
		return result, false
	}
	top["content"] = content
	out, err := json.Marshal(top)
	if err != nil {
		return result, false
	}
	return out, true
}

// kindOf is a content item's type.
func kindOf(f map[string]json.RawMessage) string {
	var kind string
	_ = json.Unmarshal(f["type"], &kind)
	return kind
}

// validBase64 reports whether a content item's bytes decode as the SDK
// decodes them (a base64 string, standard alphabet, line breaks ignored);
// bytes left out are not bad ones.
func validBase64(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return true
	}
	var b []byte
	return json.Unmarshal(raw, &b) == nil
}

// fixMessage is keepGoodContent for a whole JSON-RPC message: a response's
// result fixed, re-encoded; any other message, or one that is not JSON-RPC,
// as it is, and false.
func fixMessage(msg []byte) ([]byte, bool) {
	if !bytes.Contains(msg, []byte(`"content"`)) {
		return msg, false
	}
	m, err := jsonrpc.DecodeMessage(msg)
	resp, ok := m.(*jsonrpc.Response)
	if err != nil || !ok {
		return msg, false
	}
	fixed, changed := keepGoodContent(resp.Result)
	if !changed {
		return msg, false
	}
	resp.Result = fixed
	out, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return msg, false
	}
	return out, true
}

// fixedBody is the body of an HTTP server's answer with the tool results in
// it fixed as keepGoodContent does: a JSON message read whole, or a stream
// of server-sent events read an event at a time. A message larger than
// maxMessage is passed on as it is (the SDK refuses it whole).
func fixedBody(resp *http.Response) io.ReadCloser {
	mediaType, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	switch strings.TrimSpace(strings.ToLower(mediaType)) {
	case "application/json":
		return &jsonFixer{body: resp.Body}
	case "text/event-stream":
		return &sseFixer{r: bufio.NewReaderSize(resp.Body, 64<<10), body: resp.Body}
	}
	return resp.Body
}

// jsonFixer reads a JSON body whole, at its first Read, and passes it on
// fixed.
type jsonFixer struct {
	body io.ReadCloser
	r    io.Reader
}

func (j *jsonFixer) Read(p []byte) (int, error) {
	if j.r == nil {
		b, err := io.ReadAll(io.LimitReader(j.body, maxMessage+1))
		switch {
		case len(b) > maxMessage:
			j.r = io.MultiReader(bytes.NewReader(b), j.body)
		case err != nil:
			j.r = io.MultiReader(bytes.NewReader(b), errReader{err})
		default:
			b, _ = fixMessage(b)
			j.r = bytes.NewReader(b)
		}
	}
	return j.r.Read(p)
}

func (j *jsonFixer) Close() error { return j.body.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// sseFixer passes on a stream of server-sent events, each event's data (a
// JSON-RPC message) fixed by fixMessage. An event is read whole, up to
// maxMessage; a larger one, and what follows it, is passed on as it is.
type sseFixer struct {
	r    *bufio.Reader
	body io.Closer
	out  []byte // read, to be passed on
	// lines are the event being read, line is the line being read, size
	// their length.
	lines   [][]byte
	line    []byte
	size    int
	through bool // pass the rest on as it is
	err     error
}

func (s *sseFixer) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		switch {
		case s.err != nil:
			return 0, s.err
		case s.through:
			return s.r.Read(p)
		}
		s.next()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

func (s *sseFixer) Close() error { return s.body.Close() }

// next reads on: at the blank line that ends an event, the event is fixed
// and made ready to pass on.
func (s *sseFixer) next() {
	chunk, err := s.r.ReadSlice('\n')
	s.size += len(chunk)
	s.line = append(s.line, chunk...)
	switch {
	case s.size > maxMessage:
		// Too large to hold: what was read goes on, then the rest.
		s.out = append(bytes.Join(s.lines, nil), s.line...)
		s.lines, s.line, s.through = nil, nil, true
		return
	case err == bufio.ErrBufferFull:
		return
	case err != nil:
		s.out = append(bytes.Join(s.lines, nil), s.line...)
		s.lines, s.line, s.err = nil, nil, err
		return
	}
	s.lines = append(s.lines, s.line)
	blank := len(bytes.TrimRight(s.line, "\r\n")) == 0
	s.line = nil
	if blank {
		s.out = fixEvent(s.lines)
		s.lines, s.size = nil, 0
	}
}

// fixEvent is an event's lines, its data fixed by fixMessage: the data
// lines, joined as the SSE format joins them, become one line where the
// first was.
func fixEvent(lines [][]byte) []byte {
	prefix := []byte("data:")
	var data [][]byte
	first := -1
	for i, l := range lines {
		if v, ok := bytes.CutPrefix(l, prefix); ok {
			if first < 0 {
				first = i
			}
			data = append(data, bytes.TrimRight(bytes.TrimPrefix(v, []byte(" ")), "\r\n"))
		}
	}
	if first < 0 {
		return bytes.Join(lines, nil)
	}
	fixed, ok := fixMessage(bytes.Join(data, []byte("\n")))
	if !ok {
		return bytes.Join(lines, nil)
	}
	var out []byte
	for i, l := range lines {
		switch {
		case i == first:
			out = append(append(append(out, "data: "...), fixed...), '\n')
		case !bytes.HasPrefix(l, prefix):
			out = append(out, l...)
		}
	}
	return out
}

// Package har reads HTTP Archives (browser developer tools, mitmproxy,
// Playwright, Polly.js): {"log": {"entries": [{"request": {postData},
// "response": {status}}]}}. Every POST to a chat, messages or responses
// endpoint is checked as a request body, named entries[N], with the status
// the API answered beside each finding. The file is streamed an entry at a
// time.
package har

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// Name is the format's name.
const Name = "har"

// Format is the format of HTTP Archives.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "HAR file", Writer: "browser developer tools, mitmproxy, Playwright, Polly.js",
		Example: "traffic.har: {\"log\": {\"entries\": […]}}"}
}

// Sniff knows an archive by its "log" object.
func (format) Sniff(h *check.Head) check.Confidence {
	if keys, ok := h.Object(); ok && keys.Has("log", check.KindObject) {
		return check.Certain
	}
	return check.No
}

func (format) Open(f *check.File) error {
	r := &reader{f: f}
	return f.ReadDocument(&check.DocReader{
		Name:   Name,
		Arrays: []string{},
		Key: func(f *check.File, d *check.Doc, st *check.Stream, key string, k byte, line int) (bool, error) {
			if key != "log" || k != check.KindObject {
				return false, nil
			}
			d.Other = true
			st.Consume()
			return true, f.WalkObject(st, func(key string, k byte, line int) (bool, error) {
				if key != "entries" || k != check.KindArray {
					return false, nil
				}
				st.Consume()
				return true, f.StreamElems(st, func(line, i int) error { return r.entry(st, line, i) })
			})
		},
		End: func(f *check.File, d *check.Doc) {
			if d.Other {
				f.NoBodies("entry", r.entries)
			}
		},
	})
}

// reader is what one archive's entries have been.
type reader struct {
	f       *check.File
	entries int
	body    []byte
}

// entry checks entry i of log.entries, read a key at a time: the request
// whole, of the response only its status.
func (r *reader) entry(st *check.Stream, line, i int) error {
	f := r.f
	r.entries++
	if st.Peek() != '{' {
		return f.SkipValue(st)
	}
	st.Consume()
	var method, url string
	body := r.body[:0]
	hasBody, status, bodyLine := false, 0, line
	err := f.WalkObject(st, func(key string, k byte, kline int) (bool, error) {
		switch {
		case key == "request" && k == check.KindObject:
			ok, err := f.CaptureValue(st)
			if err != nil {
				return true, err
			}
			if !ok {
				f.TooLong(kline, fmt.Sprintf("entries[%d].request (from line %d)", i, kline))
				return true, nil
			}
			s := f.Scanner()
			var text []byte
			method, url, text, hasBody = request(s)
			if hasBody {
				body = append(body, text...)
				bodyLine = kline + bytes.Count(s.Data()[:s.Pos()], []byte{'\n'})
			}
			return true, nil
		case key == "response" && k == check.KindObject:
			st.Consume()
			return true, f.WalkObject(st, func(key string, k byte, _ int) (bool, error) {
				if key != "status" || k != check.KindNumber {
					return false, nil
				}
				ok, err := f.CaptureValue(st)
				if ok {
					status, _ = strconv.Atoi(string(bytes.TrimSpace(f.Scanner().Data())))
				}
				return true, err
			})
		}
		return false, nil
	})
	r.body = body
	if err != nil {
		return err
	}
	if hasBody && strings.EqualFold(method, "POST") {
		f.RecordedRequest(fmt.Sprintf("entries[%d]", i), method, url, body, bodyLine, status)
	}
	return nil
}

// request reads a HAR request object: method, url and postData.text,
// decoded. s is left just after the text, or at the end.
func request(s *check.Scanner) (method, url string, text []byte, hasText bool) {
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		switch string(s.Key()) {
		case "method":
			method = string(s.StringOrSkip())
		case "url":
			url = string(s.StringOrSkip())
		case "postData":
			if s.PeekKind() != check.KindObject {
				s.Skip()
				continue
			}
			s.Enter('{')
			for m := 0; s.Next('}', &m); {
				if string(s.Key()) == "text" && s.PeekKind() == check.KindString {
					text, hasText = s.Text(), true
					if method != "" && url != "" {
						return // the line of the text is where s stands
					}
					continue
				}
				s.Skip()
			}
		default:
			s.Skip()
		}
	}
	return
}

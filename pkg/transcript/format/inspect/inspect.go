// Package inspect reads Inspect AI eval logs: .eval, a ZIP archive of
// samples/<id>_epoch_<n>.json members (the default), or .json, {"version",
// "eval", "samples": [{"messages": […]}]} (logs/<time>_<task>_<id>.json).
//
// A sample's conversation is its "messages", in Inspect's own shape
// (inspect_ai/model/_chat_message.py): roles system, user, assistant and
// tool; an assistant's tool_calls are {"id", "function": name,
// "arguments": {object}}; a tool message answers one by "tool_call_id".
// Inspect's providers turn these into each API's messages, pairing the same
// way, so they are checked with the Chat Completions rules, the arguments
// being objects already.
package inspect

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// Name is the format's name.
const Name = "inspect"

// Format is the format of Inspect AI eval logs.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "Inspect AI log", Writer: "Inspect AI (inspect eval)",
		Example: "logs/<time>_<task>_<id>.eval (.json with --log-format json)"}
}

// Sniff knows a .eval log by its ZIP archive, a .json log by its "eval"
// object or "samples" array.
func (format) Sniff(h *check.Head) check.Confidence {
	if h.Zip() {
		return check.Certain
	}
	keys, ok := h.Object()
	if ok && (keys.Has("eval", check.KindObject) || keys.Has("samples", check.KindArray)) {
		return check.Certain
	}
	return check.No
}

func (format) Open(f *check.File) error {
	if f.Head().Zip() {
		if ra, size, ok := zipSource(f.Source()); ok {
			evalZip(f, ra, size)
			return nil
		}
		f.SetFormat("zip")
		f.Stop()
		f.Finding(1, check.Error, "binary-file", "a ZIP archive, not text; an Inspect AI .eval log is read from a file, not from a pipe")
		return nil
	}
	eval := false
	return f.ReadDocument(&check.DocReader{
		Name:   Name,
		Arrays: []string{},
		Note: func(f *check.File, key string, k byte) {
			eval = eval || key == "eval" && k == check.KindObject
		},
		Key: func(f *check.File, d *check.Doc, st *check.Stream, key string, k byte, line int) (bool, error) {
			if key != "samples" || k != check.KindArray {
				return false, nil
			}
			// A conversation in each sample.
			d.Other = true
			st.Consume()
			return true, f.StreamElems(st, func(line, i int) error { return sample(f, st, i) })
		},
		End: func(f *check.File, d *check.Doc) {
			if !eval || d.Messages() {
				return
			}
			// An Inspect AI log, maybe written without its samples.
			d.Other = true
			if f.Messages() == 0 {
				f.NothingChecked("this Inspect AI log holds no sample messages (was it written with --no-log-samples?)")
			}
		},
	})
}

// sample checks element i of "samples", read from the stream a key at a
// time: a sample's events can be far larger than its messages.
func sample(f *check.File, st *check.Stream, i int) error {
	if st.Peek() != '{' {
		return f.SkipValue(st)
	}
	st.Consume()
	return f.WalkObject(st, func(key string, k byte, line int) (bool, error) {
		if key != "messages" || k != check.KindArray {
			return false, nil
		}
		st.Consume()
		return true, messages(f, st, line, fmt.Sprintf("samples[%d].messages", i))
	})
}

// messages checks a sample's messages, the array whose '[' is consumed, on
// line; array names them in findings.
func messages(f *check.File, st *check.Stream, line int, array string) error {
	c := f.StartConv(line, check.ConvLog, array)
	c.SetFlat()
	c.Presume(check.ShapeOpenAI)
	if err := f.StreamArray(st, array, f.DocMessage); err != nil {
		return err
	}
	c.Finish()
	return nil
}

// zipSource returns what reading a ZIP archive needs of r: to read at any
// offset, and its size; an *os.File or a bytes.Reader has both.
func zipSource(r io.Reader) (io.ReaderAt, int64, bool) {
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return nil, 0, false
	}
	switch x := r.(type) {
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := x.Stat(); err == nil && fi.Mode().IsRegular() {
			return ra, fi.Size(), true
		}
	case interface{ Size() int64 }:
		return ra, x.Size(), true
	}
	return nil, 0, false
}

// evalZip checks an Inspect AI .eval log, the ZIP archive Inspect writes by
// default: each samples/*.json member is one sample, read as sample reads
// an element of a .json log's samples. Findings name the member:
// log.eval/samples/1_epoch_1.json:12.
func evalZip(f *check.File, ra io.ReaderAt, size int64) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		f.Stop()
		f.Finding(1, check.Error, "binary-file", "a ZIP archive that is not an Inspect AI .eval log validate can read: %v", err)
		return
	}
	name := f.Name()
	defer f.Rename(name)
	samples := 0
	for _, m := range zr.File {
		if !strings.HasPrefix(m.Name, "samples/") || !strings.HasSuffix(m.Name, ".json") {
			continue
		}
		if f.Interrupted() {
			return
		}
		samples++
		rc, err := m.Open()
		if err != nil {
			f.Rename(name)
			f.Finding(0, check.Error, "not-json", "%s: %v", m.Name, err)
			continue
		}
		f.Rename(name + "/" + m.Name)
		st := check.NewStream(bufio.NewReaderSize(rc, 64<<10), f.Options().MaxLine)
		if st.Peek() != '{' {
			f.Broken(st, st.Line(), "want the object of a sample")
		} else {
			st.Consume()
			err := f.WalkObject(st, func(key string, k byte, line int) (bool, error) {
				if key != "messages" || k != check.KindArray {
					return false, nil
				}
				st.Consume()
				return true, messages(f, st, line, "messages")
			})
			if st.Err() != nil && err == nil {
				f.Finding(st.Line(), check.Error, "not-json", "%s: %v", m.Name, st.Err())
			}
		}
		rc.Close()
	}
	f.Rename(name)
	if samples == 0 {
		f.NothingChecked("this Inspect AI log holds no samples")
	}
}

package transcript

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// Inspect AI eval logs (.json; logs/<time>_<task>_<id>.json): a document
// whose "samples" each hold the conversation of one sample under
// "messages", in Inspect's own shape (inspect_ai/model/_chat_message.py):
// roles system, user, assistant and tool; an assistant's tool_calls are
// {"id", "function": name, "arguments": {object}}; a tool message answers
// one by "tool_call_id". Inspect's providers turn these into each API's
// messages, pairing the same way, so they are checked with the Chat
// Completions rules, the arguments being objects already.

// inspectSample checks element i of "samples", read from the stream a key
// at a time: a sample's events can be far larger than its messages.
func (v *validator) inspectSample(st *stream, line, i int) error {
	if st.peek() != '{' {
		return v.skipValue(st)
	}
	st.consume()
	return v.walkObject(st, func(key string, k byte, line int) (bool, error) {
		if key != "messages" || k != kindArray {
			return false, nil
		}
		st.consume()
		v.startConv(line, kindLog, fmt.Sprintf("samples[%d].messages", i))
		v.conv.flat = true
		if v.opts.Shape == "" {
			v.conv.shape = shapeOpenAI
		}
		if err := v.streamArray(st, v.conv.array, v.docMessage); err != nil {
			return true, err
		}
		v.conv.finish()
		return true, nil
	})
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
// default: each samples/*.json member is one sample, read as inspectSample
// reads an element of a .json log's samples. Findings name the member:
// log.eval/samples/1_epoch_1.json:12.
func (v *validator) evalZip(ra io.ReaderAt, size int64) {
	v.format = InputInspect
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		v.stopped = true
		v.fileFinding(1, Error, "binary-file", "a ZIP archive that is not an Inspect AI .eval log validate can read: %v", err)
		return
	}
	name := v.name
	defer func() { v.name = name }()
	samples := 0
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "samples/") || !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		if v.interrupted() {
			return
		}
		samples++
		rc, err := f.Open()
		if err != nil {
			v.name = name
			v.fileFinding(0, Error, "not-json", "%s: %v", f.Name, err)
			continue
		}
		v.name = name + "/" + f.Name
		st := &stream{br: bufio.NewReaderSize(rc, 64<<10), line: 1, max: v.opts.MaxLine}
		if st.peek() != '{' {
			v.broken(st, st.line, "want the object of a sample")
		} else {
			st.consume()
			err := v.walkObject(st, func(key string, k byte, line int) (bool, error) {
				if key != "messages" || k != kindArray {
					return false, nil
				}
				st.consume()
				v.startConv(line, kindLog, "messages")
				v.conv.flat = true
				if v.opts.Shape == "" {
					v.conv.shape = shapeOpenAI
				}
				if err := v.streamArray(st, "messages", v.docMessage); err != nil {
					return true, err
				}
				v.conv.finish()
				return true, nil
			})
			if st.err != nil && err == nil {
				v.fileFinding(st.line, Error, "not-json", "%s: %v", f.Name, st.err)
			}
		}
		rc.Close()
	}
	v.name = name
	if samples == 0 {
		v.noConv = "this Inspect AI log holds no samples"
	}
	v.finishFile()
}

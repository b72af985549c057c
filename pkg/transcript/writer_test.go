package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/pkg/wire"
)

func TestWriterOneLinePerRecordAndSeq(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, nil)
	if err := w.WriteHeader(Header{Provider: "openai", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{`{"role":"user","content":"a <b> & c"}`, `{"role":"assistant","content":"d"}`} {
		if err := w.WriteMessage(Message{Message: json.RawMessage(m)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteEnd(End{Reason: wire.ReasonStop, Steps: 1}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	if !strings.Contains(lines[1], `"content":"a <b> & c"`) {
		t.Errorf("text should not be HTML-escaped: %s", lines[1])
	}
	r := NewReader(strings.NewReader(buf.String()))
	var seqs []int
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Message != nil {
			seqs = append(seqs, rec.Message.Seq)
		}
		if rec.Header != nil && (rec.Header.Version != Version || rec.Header.ID == "" || rec.Header.Time.IsZero()) {
			t.Errorf("header not filled in: %+v", rec.Header)
		}
	}
	if len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Errorf("seqs %v", seqs)
	}
}

func TestCreateIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "t.jsonl")
	w, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(dir)
	if di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", di.Mode().Perm())
	}
	// An existing file with a wider mode is narrowed.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err = Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("recreated file mode %v", fi.Mode().Perm())
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n++
	if f.n > 1 {
		return 0, errors.New("no space left on device")
	}
	return len(p), nil
}

func TestWriterErrorsAreSticky(t *testing.T) {
	w := NewWriter(&failingWriter{}, nil)
	if err := w.WriteHeader(Header{}); err != nil {
		t.Fatal(err)
	}
	err := w.WriteMessage(Message{Message: json.RawMessage(`{}`)})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("err = %v", err)
	}
	if err2 := w.WriteEnd(End{}); err2 != err {
		t.Errorf("later write returned %v, want the first error", err2)
	}
}

func TestRedactor(t *testing.T) {
	r := NewRedactor("my-secret-value-123", "", "short")
	tests := []struct{ in, want string }{
		{`{"k":"my-secret-value-123"}`, `{"k":"[REDACTED]"}`},
		{`key sk-proj-abcdefghijklmnopqrstuvwxyz0123 end`, `key [REDACTED] end`},
		{`sk-ant-api03-abcdefghijklmnopqrstuvwxyz`, `[REDACTED]`},
		{`Authorization: Bearer abcdefghijklmnop.qrstuv`, `Authorization: [REDACTED]`},
		{`AKIAABCDEFGHIJKLMNOP`, `[REDACTED]`},
		{`ghp_0123456789abcdefghijklmnopqrstuvwxyz`, `[REDACTED]`},
		// Keys at the start of a line of tool output, as an encoded record
		// has them: after a JSON escape.
		{`{"content":"first line\nsk-proj-abcdefghijklmnopqrstuvwxyz0123\n\tAKIAABCDEFGHIJKLMNOP\u000bghp_0123456789abcdefghijklmnopqrstuvwxyz"}`,
			`{"content":"first line\n[REDACTED]\n\t[REDACTED]\u000b[REDACTED]"}`},
		{`authorization: bearer abcdefghijklmnop0123`, `authorization: [REDACTED]`},
		// Words that merely contain "sk-" or "bearer", or a slug that
		// starts with "sk-", are left alone.
		{`task-management-framework-for-teams`, `task-management-framework-for-teams`},
		{`slug: sk-hynix-memory-prices-2024-q3 and the bearer /usr/local/bin/agentloop`, `slug: sk-hynix-memory-prices-2024-q3 and the bearer /usr/local/bin/agentloop`},
		{`the risk-assessment-and-mitigation plan`, `the risk-assessment-and-mitigation plan`},
		{`short`, `short`},
	}
	for _, tt := range tests {
		if got := r.RedactString(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A secret that JSON escapes differently is found in its escaped form.
	q := NewRedactor(`abc"def\ghi-long`)
	if got := q.RedactString(`{"v":"abc\"def\\ghi-long"}`); got != `{"v":"[REDACTED]"}` {
		t.Errorf("escaped secret: %s", got)
	}
}

func TestReaderTornLastLine(t *testing.T) {
	in := `{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"openai","model":"m"}` + "\n" +
		`{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"message","seq":2,"step":1,"time":"2026-01-01T00:00:00Z","mess`
	r := NewReader(strings.NewReader(in))
	var n int
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			if !le.Torn || le.Line != 3 {
				t.Errorf("error %+v, want a torn line 3", le)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d records read, want 2", n)
	}
}

func TestLineReaderLongLinesBOMAndCRLF(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	in := "\xef\xbb\xbf{\"a\":1}\r\n" + long + "\nlast"
	lr := NewLineReader(strings.NewReader(in))
	want := []struct {
		text     string
		complete bool
	}{{`{"a":1}`, true}, {long, true}, {"last", false}}
	for i, w := range want {
		text, n, complete, err := lr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if string(text) != w.text || complete != w.complete || n != i+1 {
			t.Errorf("line %d: %d bytes, complete %v", n, len(text), complete)
		}
	}
	if _, _, _, err := lr.Next(); err != io.EOF {
		t.Errorf("want EOF, got %v", err)
	}
}

func TestReadConversationsFormats(t *testing.T) {
	tests := []struct {
		name, in, format, shape string
		convs, msgs             int
	}{
		{"agentloop", `{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"anthropic","model":"m"}
{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}
`, "agentloop", "anthropic", 1, 1},
		{"messages", `{"role":"user","content":"q"}
{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"c","content":"r"}
`, "messages", "openai", 1, 3},
		{"request", "{\n  \"model\": \"m\",\n  \"system\": \"be brief\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"q\"}]},\n    {\"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t\", \"name\": \"f\", \"input\": {}}]}\n  ]\n}\n", "request", "anthropic", 1, 2},
		{"array", `[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]`, "request", "openai", 1, 2},
		{"responses agentloop", `{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"responses","model":"m"}
{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}
`, "agentloop", "responses", 1, 1},
		{"responses items", `{"role":"user","content":"q"}
{"type":"reasoning","id":"rs_1","summary":[]}
{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}
{"type":"function_call_output","call_id":"c","output":"r"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}
`, "messages", "responses", 1, 5},
		{"responses request", "{\"model\": \"o3\", \"instructions\": \"be brief\",\n \"input\": [{\"role\": \"user\", \"content\": \"q\"}, {\"type\": \"function_call\", \"call_id\": \"c\", \"name\": \"f\", \"arguments\": \"{}\"}]}\n", "request", "responses", 1, 2},
		{"conversations", `{"messages":[{"role":"user","content":"q"}]}
{"messages":[{"role":"user","content":"r"},{"role":"assistant","content":"s"}]}
`, "conversations", "openai", 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			convs, err := ReadConversations(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(convs) != tt.convs {
				t.Fatalf("%d conversations", len(convs))
			}
			c := convs[0]
			if c.Format != tt.format || c.Shape != tt.shape || len(c.Messages) != tt.msgs {
				t.Errorf("format %q shape %q, %d messages", c.Format, c.Shape, len(c.Messages))
			}
		})
	}
	if _, err := ReadConversations(strings.NewReader(`{"role":"user","content":"q"}` + "\n" + `{"type":"end","reason":"stop"}` + "\n")); err == nil {
		t.Error("a file mixing messages and records should be refused")
	}
	if _, err := ReadConversations(strings.NewReader("\n\n")); err == nil {
		t.Error("an empty file should be refused")
	}
	// A step is a run of output items in the Responses shape.
	convs, err := ReadConversations(strings.NewReader(`{"role":"user","content":"q"}
{"type":"reasoning","id":"rs_1","summary":[]}
{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}
{"type":"function_call_output","call_id":"c","output":"r"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	var steps []int
	for _, m := range convs[0].Messages {
		steps = append(steps, m.Step)
	}
	if fmt.Sprint(steps) != "[0 1 1 1 2]" {
		t.Errorf("steps %v", steps)
	}
}

// Messages written from several goroutines keep their lines in seq order.
func TestWriterConcurrentSeqInOrder(t *testing.T) {
	for trial := 0; trial < 50; trial++ {
		var buf bytes.Buffer
		w := NewWriter(&buf, nil)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				w.WriteMessage(Message{Message: json.RawMessage(`{"role":"tool","tool_call_id":"c","content":"x"}`)})
			})
		}
		wg.Wait()
		r := NewReader(&buf)
		for want := 1; ; want++ {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Message.Seq != want {
				t.Fatalf("trial %d: line %d has seq %d", trial, want, rec.Message.Seq)
			}
		}
	}
}

// A key printed at the start of a line of tool output is kept out of the
// record written.
func TestWriterRedactsKeyAfterNewline(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, nil)
	msg, _ := json.Marshal(map[string]string{"role": "tool", "tool_call_id": "c", "content": "config:\nsk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n"})
	if err := w.WriteMessage(Message{Message: msg}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "abcdefghijklmnop") || !strings.Contains(buf.String(), `config:\n[REDACTED]\n`) {
		t.Errorf("record: %s", buf.String())
	}
}

// TestCreateTempCommit: a transcript made with CreateTemp is not at its
// path until Commit, is private, and takes later records there; one never
// committed leaves nothing behind.
func TestCreateTempCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "child.jsonl")
	w, err := CreateTemp(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(Header{Provider: "openai", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the transcript is at its path before Commit: %v", err)
	}
	tmp := w.Path()
	if fi, err := os.Stat(tmp); err != nil || fi.Mode().Perm() != 0o600 || !strings.HasSuffix(tmp, ".tmp") {
		t.Fatalf("temporary file %s: %v %v", tmp, fi, err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if w.Path() != path {
		t.Errorf("path after Commit: %s", w.Path())
	}
	if err := w.WriteEnd(End{Reason: wire.ReasonStop}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Count(string(data), "\n") != 2 {
		t.Errorf("committed file:\n%s", data)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there: %v", err)
	}

	// A device is written in place, never renamed over.
	if _, err := os.Stat(os.DevNull); err == nil {
		w, err := CreateTemp(os.DevNull, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteHeader(Header{Provider: "openai", Model: "m"})
		if err := w.Commit(); err != nil || w.Path() != os.DevNull {
			t.Errorf("commit on %s: %v, path %s", os.DevNull, err, w.Path())
		}
		w.Close()
		if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
			t.Fatalf("%s is no longer a device: %v %v", os.DevNull, fi, err)
		}
	}

	w, err = CreateTemp(filepath.Join(dir, "never.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(Header{Provider: "openai", Model: "m"})
	w.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// CreateAt, for a path a person named: no folders made, and no file that
// is not a transcript overwritten unless asked.
func TestCreateAt(t *testing.T) {
	dir := t.TempDir()
	header := `{"type":"header","version":1,"id":"old","time":"2026-01-01T00:00:00Z","provider":"openai","model":"m"}` + "\n"
	tests := []struct {
		name      string
		path      string
		existing  *string
		overwrite bool
		wantErr   string // "" for success
	}{
		{"new file", "new.jsonl", nil, false, ""},
		{"missing folder", "nope/deeper/t.jsonl", nil, false, "nope/deeper: no such file or directory"},
		{"folder is a file", "notes.txt/t.jsonl", ptr("x"), false, "txt: not a folder"},
		{"not a transcript", "notes.txt", ptr("my notes\n"), false, ErrNotTranscript.Error()},
		{"not a transcript, overwrite", "notes2.txt", ptr("my notes\n"), true, ""},
		{"JSON that is not a transcript", "data.jsonl", ptr(`{"role":"user","content":"hi"}` + "\n"), false, ErrNotTranscript.Error()},
		{"a transcript", "old.jsonl", ptr(header), false, ""},
		{"a transcript with its keys in another order", "old2.jsonl", ptr(`{"version":1,"type":"header"}` + "\n"), false, ""},
		{"an empty file", "empty.jsonl", ptr(""), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.path)
			if tt.existing != nil {
				target := path
				if strings.HasSuffix(tt.wantErr, "not a folder") {
					target = filepath.Dir(path)
				}
				if err := os.WriteFile(target, []byte(*tt.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w, err := CreateAt(path, nil, tt.overwrite)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if tt.existing != nil && !strings.HasSuffix(tt.wantErr, "not a folder") {
					if b, _ := os.ReadFile(path); string(b) != *tt.existing {
						t.Errorf("the file was changed to %q", b)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, "nope")); err == nil {
					t.Error("a folder was made")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w.WriteHeader(Header{Provider: "openai", Model: "m"})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if ok, err := IsTranscript(path); !ok || err != nil {
				t.Errorf("not a transcript after writing: %v", err)
			}
		})
	}
	// A device is written to.
	w, err := CreateAt(os.DevNull, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}

func ptr(s string) *string { return &s }

// A Responses turn cut by a torn last line is left out whole: its items
// were written in one call, and a reasoning item alone is one no API takes.
func TestReadConversationsDropsATornTurn(t *testing.T) {
	const (
		head = `{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"responses","model":"m"}` + "\n"
		user = `{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"q"}}` + "\n"
		rs   = `{"type":"message","seq":2,"step":1,"time":"2026-01-01T00:00:00Z","message":{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"}}` + "\n"
		fc   = `{"type":"message","seq":3,"step":1,"time":"2026-01-01T00:00:00Z","message":{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},"finish_reason":"completed"}` + "\n"
	)
	for _, tt := range []struct {
		name, in string
		msgs     int
	}{
		{"torn inside the turn", head + user + rs + fc[:40], 1},
		{"whole turn, torn after", head + user + rs + fc + `{"type":"mess`, 3},
		{"not torn", head + user + rs, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			convs, err := ReadConversations(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(convs[0].Messages); n != tt.msgs {
				t.Errorf("%d messages, want %d", n, tt.msgs)
			}
		})
	}
}

// countingWriter counts the Write calls it gets.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// WriteMessages numbers its records on from the last and puts them out in
// one write call.
func TestWriteMessagesIsOneWrite(t *testing.T) {
	var out countingWriter
	w := NewWriter(&out, nil)
	if err := w.WriteMessage(Message{Message: json.RawMessage(`{"role":"user","content":"q"}`)}); err != nil {
		t.Fatal(err)
	}
	items := []Message{
		{Step: 1, Message: json.RawMessage(`{"type":"reasoning","id":"rs_1","summary":[]}`)},
		{Step: 1, Message: json.RawMessage(`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`), FinishReason: "completed"},
	}
	if err := w.WriteMessages(items...); err != nil {
		t.Fatal(err)
	}
	if out.writes != 2 {
		t.Errorf("%d writes, want 2 (one per call)", out.writes)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"seq":2`) || !strings.Contains(lines[2], `"seq":3`) || w.Seq() != 3 {
		t.Errorf("seq %d, lines:\n%s", w.Seq(), out.String())
	}
}

// Messages that carry a type of their own are told apart by their content:
// an Anthropic response object is "type":"message" too.
func TestDetectShapeOfTypedMessages(t *testing.T) {
	for _, tt := range []struct{ msg, want string }{
		{`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`, "responses"},
		{`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}`, "responses"},
		{`{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}`, "anthropic"},
		{`{"role":"assistant","content":"a"}`, "openai"},
	} {
		if got := DetectShape([]Message{{Message: json.RawMessage(tt.msg)}}); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.msg, got, tt.want)
		}
	}
}

// CreateTempAt refuses what CreateAt refuses, leaving the file as it was,
// and otherwise makes the file under a temporary name until Commit.
func TestCreateTempAt(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)
	if _, err := CreateTempAt(notes, nil, false); !errors.Is(err, ErrNotTranscript) {
		t.Errorf("over a file that is not a transcript: %v", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "my notes\n" {
		t.Errorf("the file was changed to %q", b)
	}
	if _, err := CreateTempAt(filepath.Join(dir, "nope", "t.jsonl"), nil, false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("in a missing folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); err == nil {
		t.Error("a folder was made")
	}
	path := filepath.Join(dir, "t.jsonl")
	w, err := CreateTempAt(path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(Header{Provider: "openai", Model: "m"})
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("at its path before Commit: %v", err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if ok, err := IsTranscript(path); !ok || err != nil {
		t.Errorf("not a transcript after Commit: %v", err)
	}
	// --force: a file that is not a transcript is replaced, at Commit.
	w, err = CreateTempAt(notes, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(Header{Provider: "openai", Model: "m"})
	if b, _ := os.ReadFile(notes); string(b) != "my notes\n" {
		t.Errorf("replaced before Commit: %q", b)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if ok, _ := IsTranscript(notes); !ok {
		t.Error("not replaced at Commit")
	}
}

// A symbolic link planted where a transcript is written is not followed
// to write another file: it is replaced by the transcript, and the file
// it named is left as it was (or never made). A link to a device is
// written through.
func TestCreateDoesNotFollowSymlinks(t *testing.T) {
	header := `{"type":"header","version":1,"id":"x"}` + "\n"
	tests := []struct {
		name      string
		target    string // what the link names, inside the test folder unless absolute
		content   *string
		overwrite bool
	}{
		{name: "to nothing", target: "victim.jsonl"},
		{name: "to an earlier transcript", target: "victim.jsonl", content: &header},
		{name: "to an empty file", target: "victim.jsonl", content: new(string)},
		{name: "to another file, overwrite", target: "victim.txt", content: ptr("secret\n"), overwrite: true},
	}
	for _, tc := range tests {
		for _, temp := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/temp=%v", tc.name, temp), func(t *testing.T) {
				dir := t.TempDir()
				target := filepath.Join(dir, tc.target)
				if tc.content != nil {
					if err := os.WriteFile(target, []byte(*tc.content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				link := filepath.Join(dir, "run.jsonl")
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				create := CreateAt
				if temp {
					create = CreateTempAt
				}
				w, err := create(link, nil, tc.overwrite)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.WriteHeader(Header{Provider: "openai", Model: "m"}); err != nil {
					t.Fatal(err)
				}
				if err := w.Commit(); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				fi, err := os.Lstat(link)
				if err != nil {
					t.Fatal(err)
				}
				if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v, want a regular file 0600 in the link's place", link, fi.Mode())
				}
				got, err := os.ReadFile(target)
				switch {
				case tc.content == nil && !errors.Is(err, fs.ErrNotExist):
					t.Errorf("the link's target was made (%v): %q", err, got)
				case tc.content != nil && string(got) != *tc.content:
					t.Errorf("the link's target was written: %q, want %q", got, *tc.content)
				}
			})
		}
	}
	t.Run("to a device", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "null.jsonl")
		if err := os.Symlink(os.DevNull, link); err != nil {
			t.Fatal(err)
		}
		writeHeaderAt(t, link)
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the link to %s was replaced: %v %v", os.DevNull, fi.Mode(), err)
		}
	})
	t.Run("/proc/self/fd to a file", func(t *testing.T) {
		// What -o /dev/stdout names when stdout is redirected to a file.
		f, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		path := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
		if _, err := os.Lstat(path); err != nil {
			t.Skip(err)
		}
		writeHeaderAt(t, path)
		if ok, err := IsTranscript(f.Name()); !ok || err != nil {
			t.Errorf("the file %s names holds no transcript: %v", path, err)
		}
	})
}

// writeHeaderAt creates a transcript at path and writes its header.
func writeHeaderAt(t *testing.T, path string) {
	t.Helper()
	w, err := CreateAt(path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(Header{Provider: "openai", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

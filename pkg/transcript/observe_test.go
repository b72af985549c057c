package transcript

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentloop/agentloop/pkg/wire"
)

// An observer is told of the header written before it came and of every
// line after, one call a line, as they are in the file.
func TestObserve(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, NewRedactor("tok-0123456789abcdefXYZ"))
	if err := w.WriteHeader(Header{Provider: "openai", Model: "m", System: "key tok-0123456789abcdefXYZ"}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMessage(Message{Message: json.RawMessage(`{"role":"user","content":"before"}`)}); err != nil {
		t.Fatal(err)
	}
	var seen [][]byte
	w.Observe(func(line []byte) { seen = append(seen, bytes.Clone(line)) })
	if err := w.WriteMessages(
		Message{Message: json.RawMessage(`{"role":"assistant","content":"a"}`)},
		Message{Message: json.RawMessage(`{"role":"user","content":"tok-0123456789abcdefXYZ"}`)},
	); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEnd(End{Reason: wire.ReasonStop}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	want := [][]byte{lines[0], lines[2], lines[3], lines[4]}
	if len(seen) != len(want) {
		t.Fatalf("observed %d lines, want %d: %q", len(seen), len(want), seen)
	}
	for i := range want {
		if !bytes.Equal(seen[i], want[i]) {
			t.Errorf("line %d: observed %q, the file has %q", i, seen[i], want[i])
		}
		if bytes.Contains(seen[i], []byte("tok-0123456789abcdefXYZ")) {
			t.Errorf("line %d observed unredacted: %q", i, seen[i])
		}
		if _, err := ParseRecord(seen[i]); err != nil {
			t.Errorf("line %d: %v", i, err)
		}
	}
}

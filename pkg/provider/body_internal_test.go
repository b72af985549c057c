package provider

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// A body read piece after piece is the body joined, however it is read.
func TestBodyReader(t *testing.T) {
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"` + strings.Repeat("x", 100) + `"}`),
		json.RawMessage(`{"role":"user","content":"short"}`),
		json.RawMessage(`{"role":"assistant","content":"` + strings.Repeat("y", 70000) + `"}`),
	}
	w := NewBody(2 * len(msgs))
	w.Str("model", "m")
	w.Array("messages", []json.RawMessage{json.RawMessage(`{"content":"You read.","role":"system"}`)}, msgs)
	w.End()
	all := joined(w)
	if len(all) != w.Len() || !json.Valid(all) {
		t.Fatalf("%d bytes, Len %d, valid %v", len(all), w.Len(), json.Valid(all))
	}
	if len(w.pieces) < 3 {
		t.Errorf("%d pieces: the messages were copied", len(w.pieces))
	}
	if err := iotest.TestReader(w.Reader(), all); err != nil {
		t.Error(err)
	}
	if err := iotest.TestReader(iotest.OneByteReader(w.Reader()), all); err != nil {
		t.Error(err)
	}
	if err := iotest.TestReader(iotest.HalfReader(w.Reader()), all); err != nil {
		t.Error(err)
	}
	// What the body writes itself outgrows its first buffer: what was
	// written before stays as it was.
	b := NewBody(0)
	for i := range 200 {
		b.Str(strings.Repeat("k", i%40), strings.Repeat("v", i))
	}
	b.End()
	var m map[string]string
	if err := json.Unmarshal(joined(b), &m); err != nil || len(m) != 40 || m["k"] != strings.Repeat("v", 161) {
		t.Errorf("%v: %d keys", err, len(m))
	}
	if err := iotest.TestReader(b.Reader(), joined(b)); err != nil {
		t.Error(err)
	}
}

// joined is the body as the server reads it.
func joined(w *Body) []byte { return slices.Concat(w.pieces...) }

package tracing

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// Each file's spans are written as one line of OTLP JSON and reported; a
// file that cannot be read is reported with its error and the others are
// still exported; a write that fails names the output.
func TestExportFiles(t *testing.T) {
	var out bytes.Buffer
	e := &Exporter{Out: &out, OutName: "--otlp-file", Version: "test"}
	var reported []string
	ok := e.ExportFiles(context.Background(), []string{"testdata/openai.jsonl", "testdata/none.jsonl", "testdata/anthropic.jsonl"},
		func(path string, spans []Span, err error) {
			reported = append(reported, path)
			if (err == nil) != (path != "testdata/none.jsonl") || err == nil && len(spans) == 0 {
				t.Errorf("%s: %d spans, %v", path, len(spans), err)
			}
		})
	if ok || len(reported) != 3 {
		t.Errorf("ok %v, reported %q", ok, reported)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"resourceSpans":`) {
		t.Errorf("written:\n%s", out.String())
	}

	e.Out = failingWriter{}
	err := e.Export(context.Background(), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "--otlp-file: ") {
		t.Errorf("a failed write: %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

package inspect

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: a .eval log is a ZIP archive; a .json log has an eval object
// or a samples array, pretty-printed or on one line.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"a ZIP archive", "PK\x03\x04\x14\x00", check.Certain},
		{"pretty-printed", "{\n  \"version\": 2,\n  \"status\": \"success\",\n  \"eval\": {\n", check.Certain},
		{"on one line", `{"version":2,"samples":[{"messages":[]}]}` + "\n", check.Certain},
		{"a request body", "{\n  \"model\": \"m\",\n  \"messages\": []\n}\n", check.No},
		{"samples that are not an array", `{"samples":5}` + "\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRealLogs: real logs read, every sample's calls counted; a log written
// without its samples says nothing was checked.
func TestRealLogs(t *testing.T) {
	fs, st := checktest.Validate(t, check.Registry{Format}, "e.json", checktest.ReadLog(t, "inspect_browser_EXCERPT.json"), check.Options{})
	if len(fs) != 0 || st.Conversations != 1 || st.Messages != 10 || st.ToolCalls != 4 {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
	fs, st = checktest.Validate(t, check.Registry{Format}, "n.json", checktest.ReadLog(t, "inspect_no-samples.json"), check.Options{})
	if len(fs) != 1 || fs[0].Code != "no-conversation" || st.Conversations != 0 {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}

// TestEvalZipFromPipe: a ZIP archive is read from its end, which a pipe
// does not have: one finding says so.
func TestEvalZipFromPipe(t *testing.T) {
	data := checktest.ReadLog(t, "inspect_message_deduplication.eval")
	var fs []check.Finding
	st, err := check.Validate(context.Background(), check.Registry{Format}, "log.eval", struct{ *bytes.Buffer }{bytes.NewBuffer(data)}, check.Options{},
		func(f check.Finding) { fs = append(fs, f) })
	if err != nil || st.Format != "zip" || len(fs) != 1 || fs[0].Code != "binary-file" {
		t.Fatalf("%v %+v %v", err, st, fs)
	}
}

// TestEvalZipFromFile: a .eval log is read from its file (a ZIP archive is
// read from its end), each sample member named in findings.
func TestEvalZipFromFile(t *testing.T) {
	f, err := os.Open(filepath.Join(checktest.LogsDir, "inspect_message_deduplication.eval"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fs []check.Finding
	st, err := check.Validate(context.Background(), check.Registry{Format}, "log.eval", f, check.Options{}, func(x check.Finding) { fs = append(fs, x) })
	if err != nil || st.Format != Name || st.ToolCalls != 5 || st.Conversations != 1 {
		t.Fatalf("%v %+v", err, st)
	}
	for _, x := range fs {
		if x.File != "log.eval/samples/0_epoch_1.json" || x.Severity == check.Error {
			t.Errorf("%v", x)
		}
	}
}

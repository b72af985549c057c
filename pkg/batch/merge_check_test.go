package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// merge -o refuses to replace a folder, the input, a results file it
// reads, or a file that is not a results file; a file not there yet, an
// empty one and an earlier merge's are fine.
func TestCheckMergeOutput(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard")
	os.MkdirAll(shard, 0o755)
	os.WriteFile(filepath.Join(shard, ResultsName), nil, 0o600)
	input := filepath.Join(dir, "in.jsonl")
	os.WriteFile(input, []byte(`{"prompt":"x"}`+"\n"), 0o600)
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("my notes\n"), 0o600)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o600)
	for _, tt := range []struct{ out, want string }{
		{"", ""},
		{"-", ""},
		{filepath.Join(dir, "new.jsonl"), ""},
		{empty, ""},
		{dir, "is a folder"},
		{input, "is the input merge reads"},
		{filepath.Join(shard, ResultsName), "is the results file of " + shard},
		{other, "is not a results file"},
	} {
		err := CheckMergeOutput(tt.out, input, []string{shard})
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("-o %s: %v, want %q", tt.out, err, tt.want)
		}
	}
}

package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A transcript that fails validation is refused with its findings said,
// or read with a warning that gives the reason to go on; a missing file is
// a usage error; a file of two conversations is not one.
func TestLoadConversations(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	// A tool result that answers no call.
	os.WriteFile(bad, []byte(`{"role":"user","content":"hi"}
{"role":"tool","tool_call_id":"call_1","content":"x"}
`), 0o600)
	var warn bytes.Buffer
	_, err := LoadConversations(bad, nil, &warn, RefuseInvalid)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.N == 0 || inv.File != bad {
		t.Fatalf("refused: %v", err)
	}
	if warn.Len() == 0 {
		t.Error("no findings printed")
	}
	warn.Reset()
	convs, err := LoadConversations(bad, nil, &warn, ForceInvalid)
	if err != nil || len(convs) != 1 {
		t.Fatalf("forced: %v, %d conversations", err, len(convs))
	}
	if !strings.Contains(warn.String(), "fails validation") || !strings.HasSuffix(strings.TrimSpace(warn.String()), string(ForceInvalid)) {
		t.Errorf("warning: %q", warn.String())
	}

	if _, err := LoadConversations(filepath.Join(dir, "none.jsonl"), nil, &warn, RefuseInvalid); KindOf(err) != Usage {
		t.Errorf("missing file: %v", err)
	}

	good := `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}` + "\n"
	two := filepath.Join(dir, "two.jsonl")
	os.WriteFile(two, []byte(good+good), 0o600)
	if _, err := LoadConversation(two, nil, &warn, RefuseInvalid); KindOf(err) != Usage || !strings.Contains(err.Error(), "holds 2 conversations") {
		t.Errorf("two conversations: %v", err)
	}
	convs, err = LoadConversations("-", strings.NewReader(good), &warn, RefuseInvalid)
	if err != nil || len(convs) != 1 {
		t.Errorf("stdin: %v, %d", err, len(convs))
	}
}

package toolset

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/wire"
)

// tools call runs a script tool by name and says how many bytes it
// wrote; a name no tool has is an unknown-tool result.
func TestCallOne(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hi.yaml"), []byte("name: hi\ndescription: says hi\ncommand: [echo, hi]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Load([]string{dir}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Reg: reg}
	res, n := s.CallOne(context.Background(), "hi", "call_1", []byte(`{}`))
	if res.IsError || res.Content != "hi\n" || n != 3 {
		t.Fatalf("%+v, %d bytes", res, n)
	}
	b, _ := json.Marshal(NewCallJSON(res, n))
	if !strings.Contains(string(b), `"content":"hi\n","is_error":false,"exit_code":0,`) || !strings.Contains(string(b), `"bytes":3`) {
		t.Errorf("%s", b)
	}
	res, _ = s.CallOne(context.Background(), "nope", "call_2", []byte(`{}`))
	if !res.IsError || res.Kind != wire.KindUnknownTool {
		t.Errorf("unknown tool: %+v", res)
	}
}

// Each image is a line of its own after the text.
func TestCallText(t *testing.T) {
	res := agent.ToolResult{Content: "a chart", Images: []agent.Image{{MIMEType: "image/png", Data: make([]byte, 12)}}}
	if got, want := CallText(res), "a chart\n[image: image/png, 12 bytes; --json prints its data]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := CallText(agent.ToolResult{Content: "plain"}); got != "plain" {
		t.Errorf("got %q", got)
	}
}

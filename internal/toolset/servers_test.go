package toolset

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/mcptest"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// mcp list and mcp check report a server that starts, one that does not
// (its error redacted) and one disabled; check names what each API would
// refuse in a tool's definition.
func TestServerReports(t *testing.T) {
	good := httptest.NewServer(mcptest.Handler(mcptest.Options{BadSchemas: true}))
	defer good.Close()
	bad := httptest.NewServer(nil) // 404 to everything
	defer bad.Close()
	cfgs := []*mcp.Config{
		{Name: "good", URL: good.URL, Timeout: 5 * time.Second, StartTimeout: 10 * time.Second, File: "tools.d/good.yaml", Line: 1},
		{Name: "bad", URL: bad.URL, Timeout: 5 * time.Second, StartTimeout: 10 * time.Second, File: "tools.d/bad.yaml", Line: 2},
		{Name: "off", Command: []string{"srv"}, Disabled: true, File: "tools.d/off.yaml", Line: 3},
	}
	set := mcp.Start(context.Background(), Enabled(cfgs), mcp.Options{})
	defer set.Close()
	redact := transcript.NewRedactor("127.0.0.1")

	rows := ListServers(cfgs, set, redact)
	if len(rows) != 3 || rows[0].Status != "ok" || len(rows[0].Tools) == 0 || rows[1].Status != "failed" || rows[2].Status != "disabled" {
		t.Fatalf("%+v", rows)
	}
	if Failed(rows) != 1 {
		t.Errorf("failed: %d", Failed(rows))
	}
	var b bytes.Buffer
	if err := WriteList(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "good ") || !strings.Contains(lines[1], "failed: ") || strings.Join(strings.Fields(lines[2]), " ") != "off stdio srv disabled" {
		t.Errorf("list:\n%s", b.String())
	}

	checked, problems := CheckServers(set, &tools.Registry{}, redact)
	js, _ := json.Marshal(checked)
	if len(checked) != 2 || problems == 0 || checked[1].Status != "failed" || !strings.Contains(checked[1].Error, "[REDACTED]") || strings.Contains(checked[1].Error, "127.0.0.1") {
		t.Fatalf("%d problems: %s", problems, js)
	}
	if len(checked[0].Offered) == 0 || checked[0].Problems[0] == "" {
		t.Errorf("good: %s", js)
	}
	b.Reset()
	WriteCheck(&b, checked)
	out := b.String()
	for _, want := range []string{"mcp server good (tools.d/good.yaml:1)\n", "    problem: ", "mcp server bad (tools.d/bad.yaml:2)\n  http: ", "  problem: does not start: "} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q:\n%s", want, out)
		}
	}
}

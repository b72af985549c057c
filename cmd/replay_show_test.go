package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./cmd -update rewrites it)\n--- got\n%s", name, got)
	}
}

func TestReplayShowGolden(t *testing.T) {
	demo := filepath.Join("..", "testdata", "demo", "session.jsonl")
	tests := []struct {
		name   string
		tty    bool
		width  int
		golden string
	}{
		{"piped", false, 80, "show_piped.golden"},
		{"terminal", true, 72, "show_terminal.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, errOut := Test()
			ios.SetTTY(false, tt.tty, tt.tty)
			ios.SetColorEnabled(tt.tty)
			ios.SetWidth(tt.width)
			if err := runReplayShow(context.Background(), &ReplayOptions{IO: ios, File: demo}); err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			golden(t, tt.golden, out.String())
			hasColor := strings.Contains(out.String(), "\x1b[")
			if hasColor != tt.tty {
				t.Errorf("colours: %v on a terminal = %v", hasColor, tt.tty)
			}
			if tt.tty {
				for _, l := range strings.Split(out.String(), "\n") {
					if n := len([]rune(stripANSI(l))); n > tt.width {
						t.Errorf("line of %d columns on a %d-column terminal: %q", n, tt.width, l)
					}
				}
			}
		})
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Every Anthropic request of the recorded corpus reads with --show: each
// tool_use of the conversation appears with its id.
func TestReplayShowCorpusAnthropic(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "pydantic-ai-anthropic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Request json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		file := filepath.Join(t.TempDir(), "request.json")
		if err := os.WriteFile(file, rec.Request, 0o600); err != nil {
			t.Fatal(err)
		}
		ios, _, out, errOut := Test()
		if err := runReplayShow(context.Background(), &ReplayOptions{IO: ios, File: file}); err != nil {
			t.Errorf("line %d: %v\n%s", i+1, err, errOut)
			continue
		}
		for _, id := range toolUseIDs(t, rec.Request) {
			if !strings.Contains(out.String(), id) {
				t.Errorf("line %d: tool_use %s is not shown", i+1, id)
			}
		}
		if !strings.Contains(out.String(), "anthropic messages") {
			t.Errorf("line %d: not read as Anthropic messages:\n%s", i+1, out)
		}
		shown++
	}
	if shown < 50 {
		t.Errorf("only %d records shown", shown)
	}
}

func toolUseIDs(t *testing.T, request []byte) []string {
	t.Helper()
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(request, &body); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range body.Messages {
		var blocks []struct{ Type, ID string }
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_use" {
				ids = append(ids, b.ID)
			}
		}
	}
	return ids
}

// Text a model or a tool wrote reaches the terminal as text: escape
// sequences and bidirectional overrides are shown, not obeyed.
func TestReplayShowEscapesControlCharacters(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(file, []byte(`{"role":"user","content":"hi"}
{"role":"assistant","content":"evil \u001b]0;pwned\u0007 \u202eoof","tool_calls":[{"id":"c\u001b[2J","type":"function","function":{"name":"f","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"c\u001b[2J","content":"line\u001b[31mred"}
`), 0o600)
	ios, _, out, _ := Test()
	ios.SetTTY(false, true, true)
	if err := runReplayShow(context.Background(), &ReplayOptions{IO: ios, File: file}); err != nil {
		t.Fatal(err)
	}
	// Colours are off, so no escape at all may be written.
	if strings.ContainsAny(out.String(), "\x1b\x07\u202e") {
		t.Errorf("control characters reached the terminal:\n%q", out.String())
	}
	for _, want := range []string{`evil \u001b]0;pwned\u0007 \u202eoof`, `c\u001b[2J`, `line\u001b[31mred`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

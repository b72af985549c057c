package textview

import (
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
	path := filepath.Join("..", "..", "testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/textview -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./pkg/textview -update rewrites it)\n--- got\n%s", name, got)
	}
}

// show renders the file at path as replay --show does: on a terminal of
// width columns in colour, or piped (tty false); texts over limit bytes
// left in the file (0 for the default).
func show(path string, tty bool, width, limit int) (string, Result, error) {
	opts := Options{LongText: limit}
	if tty {
		opts.Width, opts.Color = width, true
	}
	return render(path, opts)
}

// render renders the file at path with opts.
func render(path string, opts Options) (string, Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", Result{}, err
	}
	defer f.Close()
	opts.Name = path
	var out strings.Builder
	res, err := Render(&out, f, opts)
	return out.String(), res, err
}

func TestReplayShowGolden(t *testing.T) {
	demo := filepath.Join("..", "..", "testdata", "demo", "session.jsonl")
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
			out, _, err := show(demo, tt.tty, tt.width, 0)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, out)
			hasColor := strings.Contains(out, "\x1b[")
			if hasColor != tt.tty {
				t.Errorf("colours: %v on a terminal = %v", hasColor, tt.tty)
			}
			if tt.tty {
				for _, l := range strings.Split(out, "\n") {
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
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "pydantic-ai-anthropic.jsonl"))
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
		out, _, err := show(file, false, 0, 0)
		if err != nil {
			t.Errorf("line %d: %v", i+1, err)
			continue
		}
		for _, id := range toolUseIDs(t, rec.Request) {
			if !strings.Contains(out, id) {
				t.Errorf("line %d: tool_use %s is not shown", i+1, id)
			}
		}
		if !strings.Contains(out, "anthropic messages") {
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
	// On a terminal, colours off.
	out, _, err := render(file, Options{Width: 80})
	if err != nil {
		t.Fatal(err)
	}
	// Colours are off, so no escape at all may be written.
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("control characters reached the terminal:\n%q", out)
	}
	for _, want := range []string{`evil \u001b]0;pwned\u0007 \u202eoof`, `c\u001b[2J`, `line\u001b[31mred`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

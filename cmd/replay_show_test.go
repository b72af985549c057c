package cmd

import (
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
			if err := runReplayShow(&ReplayOptions{IO: ios, File: demo}); err != nil {
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

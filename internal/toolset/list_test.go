package toolset

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/tools"
)

// tools list: every tool in name order, the one a nearer folder defines
// winning with what it overrides; the table names each tool's file with ~
// for the home folder and, on a terminal, cuts a long description and
// shows a control byte escaped.
func TestListAndTable(t *testing.T) {
	home := t.TempDir()
	project, user := filepath.Join(home, "project"), filepath.Join(home, "user")
	for path, text := range map[string]string{
		filepath.Join(project, "b.yaml"): "name: b\ndescription: \"the project's b\\nsecond line\"\ncommand: [echo, b]\n",
		filepath.Join(user, "b.yaml"):    "name: b\ndescription: the user's b\ncommand: [echo, b]\n",
		filepath.Join(user, "a.yaml"):    "name: a\ndescription: \"a tool whose description is long enough to be cut \\u001b[2J on a narrow terminal\"\ncommand: [echo, a]\n",
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := tools.Load([]string{project, user}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := (&Set{Reg: reg}).List()
	if len(rows) != 2 || rows[0].Name != "a" || rows[1].Name != "b" || rows[1].Source != "script" ||
		rows[1].File != filepath.Join(project, "b.yaml") || len(rows[1].Overrides) != 1 || rows[1].Env == nil {
		t.Fatalf("%+v", rows)
	}

	var piped bytes.Buffer
	if err := WriteTable(&piped, rows, home, false, 60); err != nil {
		t.Fatal(err)
	}
	want := "a  ~/user/a.yaml:1                                 a tool whose description is long enough to be cut \x1b[2J on a narrow terminal\n" +
		"b  ~/project/b.yaml:1 (overrides ~/user/b.yaml:1)  the project's b\n"
	if piped.String() != want {
		t.Errorf("piped:\n%q\nwant\n%q", piped.String(), want)
	}
	var tty bytes.Buffer
	WriteTable(&tty, rows, home, true, 70)
	first, _, _ := strings.Cut(tty.String(), "\n")
	// The description keeps at least 20 characters, whatever the width.
	if strings.Contains(first, "\x1b") || !strings.HasSuffix(first, "  a tool whose descri…") {
		t.Errorf("on a terminal: %q", first)
	}
}

package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// chmod +x is offered only for the user's own file in the tool's folder:
// never for a file a run: path reaches outside it, through .. or a
// symbolic link, nor for someone else's file.
func TestChmodAdvice(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.txt": okScript})
	os.Chmod(filepath.Join(outside, "secret.txt"), 0o644)
	up := strings.Repeat("../", 40)
	tests := []struct {
		name, run, want string
		setup           func(t *testing.T, dir string)
	}{
		{name: "the user's script", run: "tool.txt", want: "run: DIR/tool.txt is not executable; run chmod +x DIR/tool.txt"},
		{name: "a name a shell would split", run: "my tool; rm -rf ~.txt", want: `run: DIR/my tool; rm -rf ~.txt is not executable; run chmod +x 'DIR/my tool; rm -rf ~.txt'`},
		{name: "a quote in the name", run: "it's.txt", want: `run: DIR/it's.txt is not executable; run chmod +x 'DIR/it'\''s.txt'`},
		{name: "a system file reached through ..", run: up + "etc/passwd", want: "run: /etc/passwd is not executable"},
		{name: "a file outside through ..", run: up + strings.TrimPrefix(outside, "/") + "/secret.txt", want: "run: " + outside + "/secret.txt is not executable"},
		{name: "a link out of the folder", run: "link.txt", want: "run: DIR/link.txt is not executable", setup: func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "someone else's file", run: "theirs.txt", want: "run: DIR/theirs.txt is not executable", setup: func(t *testing.T, dir string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a file to another user")
			}
			p := filepath.Join(dir, "theirs.txt")
			os.WriteFile(p, []byte(okScript), 0o644)
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Skip(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat("/etc/passwd"); err != nil && strings.Contains(tt.run, "passwd") {
				t.Skip("no /etc/passwd")
			}
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"x.yaml": "name: x\ndescription: d\nrun: \"" + tt.run + "\"\n"})
			if !strings.HasPrefix(tt.run, "../") && tt.setup == nil {
				p := filepath.Join(dir, tt.run)
				os.WriteFile(p, []byte(okScript), 0o644)
			}
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			_, err := Load([]string{dir}, Options{Getenv: testEnv(nil)})
			if err == nil {
				t.Fatal("loaded")
			}
			want := "x.yaml:3: " + strings.ReplaceAll(tt.want, "DIR", dir)
			if got := strings.Split(strings.ReplaceAll(err.Error(), dir+"/x.yaml", "x.yaml"), "\n"); !slices.Equal(got, []string{want}) {
				t.Errorf("error:\n got  %q\n want %q", got, want)
			}
		})
	}
}

// A folder named relative to the working directory, as ./tools.d is, gets
// the advice too.
func TestChmodAdviceRelativeFolder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tools.d/x.yaml": "name: x\ndescription: d\nrun: x.txt\n", "tools.d/x.txt": okScript})
	t.Chdir(dir)
	_, err := Load([]string{"tools.d"}, Options{Getenv: testEnv(nil)})
	want := "tools.d/x.yaml:3: run: tools.d/x.txt is not executable; run chmod +x tools.d/x.txt"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

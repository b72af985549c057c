package toolset

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// The default folders are the project's then the user's; of those agentloop
// picks itself, one not there is left out quietly and one not trusted is
// left out and told.
func TestDirs(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	want := []string{"tools.d", "/home/u/.config/agentloop/tools.d"}
	if runtime.GOOS == "darwin" {
		want[1] = "/home/u/Library/Application Support/agentloop/tools.d"
	}
	if got := DefaultDirs(getenv); !slices.Equal(got, want) {
		t.Errorf("default folders %q, want %q", got, want)
	}
	env["XDG_CONFIG_HOME"] = "/xdg"
	if got := UserDir(getenv); got != "/xdg/agentloop/tools.d" {
		t.Errorf("with XDG_CONFIG_HOME: %s", got)
	}
	if got := DefaultDirs(func(string) string { return "" }); !slices.Equal(got, []string{"tools.d"}) {
		t.Errorf("without HOME: %q", got)
	}

	dir := t.TempDir()
	trusted, other := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Mkdir(trusted, 0o755)
	os.Mkdir(other, 0o755)
	var ignored []string
	got, err := Usable([]string{filepath.Join(dir, "none"), trusted, other}, func(d string) (string, error) {
		if d == other {
			return "not trusted", nil
		}
		return "", nil
	}, func(d, why string) { ignored = append(ignored, d+": "+why) })
	if err != nil || !slices.Equal(got, []string{trusted}) || !slices.Equal(ignored, []string{other + ": not trusted"}) {
		t.Errorf("usable %q, %v; ignored %q", got, err, ignored)
	}
}

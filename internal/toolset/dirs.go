package toolset

import (
	"os"
	"path/filepath"
	"runtime"
)

// UserConfigDir is os.UserConfigDir read through getenv, so that tests do
// not see the configuration of whoever runs them; "" without one.
func UserConfigDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		return ""
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support")
	}
	return filepath.Join(home, ".config")
}

// UserDir is the user's own tools folder,
// $XDG_CONFIG_HOME/agentloop/tools.d; "" without one.
func UserDir(getenv func(string) string) string {
	if cfg := UserConfigDir(getenv); cfg != "" {
		return filepath.Join(cfg, "agentloop", "tools.d")
	}
	return ""
}

// DefaultDirs are ./tools.d and the user's own tools.d, in that order: a
// project's tool overrides the user's of the same name.
func DefaultDirs(getenv func(string) string) []string {
	dirs := []string{"tools.d"}
	if d := UserDir(getenv); d != "" {
		dirs = append(dirs, d)
	}
	return dirs
}

// Usable are the folders of dirs, which agentloop picked itself, that it
// uses: those there and trusted. untrusted says why a folder is not
// trusted, "" when it is; ignored is told of each folder left out for
// that reason.
func Usable(dirs []string, untrusted func(dir string) (string, error), ignored func(dir, why string)) ([]string, error) {
	var out []string
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		why, err := untrusted(d)
		if err != nil {
			return nil, err
		}
		if why == "" {
			out = append(out, d)
		} else {
			ignored(d, why)
		}
	}
	return out, nil
}

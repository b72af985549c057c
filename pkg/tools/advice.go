package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentloop/agentloop/internal/shell"
)

// chmodAdvice is the fix offered for a program that is not executable,
// or "" when chmod +x is not the user's to run: the file must be in the
// tool's own folder (after symbolic links: chmod follows them), a regular
// file, and the user's. A run: path that reaches /etc/passwd gets no advice
// to make /etc/passwd executable. path is the file, shown as written.
func chmodAdvice(folder, path, shown string, fi fs.FileInfo) string {
	if !fi.Mode().IsRegular() {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return ""
	}
	dir, err := filepath.Abs(folder)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return ""
	}
	file, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	if rel, err := filepath.Rel(dir, file); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	if strings.HasPrefix(shown, "-") {
		shown = "./" + shown // a file name, not an option
	}
	return "; run chmod +x " + shell.Quote(shown)
}

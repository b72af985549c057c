// Package shell writes words for a POSIX shell: commands agentloop shows a
// user to copy, with paths that may come from a repository they cloned.
package shell

import (
	"regexp"
	"strings"
	"sync"
)

var safe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./+=:,@%-]+$`) })

// Quote returns s as one shell word that stands for s exactly: unchanged
// when it holds nothing a shell would read, else in single quotes. A
// command shown with it runs what it shows and nothing a file name
// smuggles in.
func Quote(s string) string {
	if safe().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

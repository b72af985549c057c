package trust

import (
	"fmt"
	"os"
	"syscall"
)

// NotPrivate says why what is at path (a folder, or a file) may hold what
// another user put there: it is theirs, or every user can write to it (a
// sticky bit, as /tmp has, keeps others from removing files, not from
// adding them). It returns "" for a file or folder of one's own, and for
// one that cannot be looked at (the caller's open says why).
func NotPrivate(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Sprintf("belongs to another user (uid %d)", st.Uid)
	}
	if fi.Mode().Perm()&0o002 != 0 {
		return fmt.Sprintf("can be written by every user (mode %04o)", fi.Mode().Perm())
	}
	return ""
}

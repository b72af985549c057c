//go:build !linux

package early

// terminalWidth cannot ask a terminal here without golang.org/x/term: the
// help is left to the command tree.
func terminalWidth(int) (w int, tty, ok bool) { return 0, false, false }

// exeVersion is left to runtime/debug, in the command tree.
func exeVersion() string { return "" }

package early

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalWidth reports whether fd is a terminal and, if so, its width,
// with the ioctls golang.org/x/term makes (importing it would make this
// package wait for golang.org/x/sys/unix and the packages before it).
func terminalWidth(fd int) (w int, tty, ok bool) {
	var t syscall.Termios
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); errno != 0 {
		return 0, false, true
	}
	var ws struct{ Row, Col, Xpixel, Ypixel uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))); errno != 0 {
		return 0, true, true
	}
	return int(ws.Col), true, true
}

// exeVersion is the main module's version in this program's own build
// information ("" when it cannot be read).
func exeVersion() string {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return ""
	}
	defer f.Close()
	return moduleVersion(f)
}

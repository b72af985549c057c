package history

import (
	"io"
	"syscall"
	"time"
)

// openFile opens a file for reading and says what it is in two system
// calls, open and fstat. os.Open and File.Stat take seven for a regular
// file: os.Open also tries to register it with the runtime's network
// poller, which a regular file refuses, setting and clearing non-blocking
// mode around it. O_NONBLOCK keeps a named pipe put in place of a listed
// file from blocking the open; it does nothing to a regular file's reads.
func openFile(path string) (readCloser, fileInfo, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, fileInfo{}, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		_ = syscall.Close(fd)
		return nil, fileInfo{}, err
	}
	info := fileInfo{
		regular: st.Mode&syscall.S_IFMT == syscall.S_IFREG,
		size:    st.Size,
		modTime: time.Unix(st.Mtim.Unix()),
	}
	return fdFile(fd), info, nil
}

// fdFile reads a file by its descriptor with pread, as os.File's ReadAt
// does.
type fdFile int

func (f fdFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		m, err := syscall.Pread(int(f), p[n:], off+int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

func (f fdFile) Close() error { return syscall.Close(int(f)) }

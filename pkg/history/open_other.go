//go:build !linux

package history

import "os"

// openFile opens a file for reading and says what it is.
func openFile(path string) (readCloser, fileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileInfo{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fileInfo{}, err
	}
	return f, fileInfo{regular: fi.Mode().IsRegular(), size: fi.Size(), modTime: fi.ModTime()}, nil
}

package history

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// fileReader reads lines at the start of a file, keeping what it read so
// that a small file is read once.
type fileReader struct {
	f    io.ReaderAt
	size int64
	// buf holds bytes [0, len(buf)) of the file.
	buf []byte
	// tail is a buffer for the first read from the end, or nil.
	tail []byte
	// scratch is promptAfter's buffer, made when first needed.
	scratch []byte
}

// buffers are the two a file is first read into. They are reused from file
// to file: an entry keeps none of their bytes (what it decodes is copied).
type buffers struct{ head, tail, scratch []byte }

var bufPool = sync.Pool{New: func() any {
	return &buffers{head: make([]byte, 0, headChunk), tail: make([]byte, tailChunk)}
}}

// newFileReader reads f with pooled buffers; release gives them back.
func newFileReader(f io.ReaderAt, size int64) (*fileReader, func()) {
	b := bufPool.Get().(*buffers)
	r := &fileReader{f: f, size: size, buf: b.head[:0], tail: b.tail, scratch: b.scratch}
	return r, func() {
		// A buffer grown for a long line is not kept.
		if cap(r.buf) == headChunk {
			b.head, b.scratch = r.buf[:0], r.scratch
			bufPool.Put(b)
		}
	}
}

// headLine is the first line of the file.
type headLine struct {
	line     []byte
	next     int64 // offset of the line after it
	complete bool  // the line ends with a newline
}

// head returns the first line, without a UTF-8 byte order mark.
func (r *fileReader) head() (headLine, error) {
	line, next, err := r.lineAt(0)
	if err == io.EOF {
		return headLine{}, nil
	}
	if err != nil {
		return headLine{}, err
	}
	complete := next > 0 && r.buf[next-1] == '\n'
	return headLine{line: bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), next: next, complete: complete}, nil
}

// lineAt returns the line that starts at off, without its line ending, and
// the offset of the next line; io.EOF at the end of the file. A last line
// without a newline is returned as it is.
func (r *fileReader) lineAt(off int64) ([]byte, int64, error) {
	if off >= r.size {
		return nil, off, io.EOF
	}
	for {
		if off < int64(len(r.buf)) {
			if i := bytes.IndexByte(r.buf[off:], '\n'); i >= 0 {
				return bytes.TrimSuffix(r.buf[off:off+int64(i)], []byte("\r")), off + int64(i) + 1, nil
			}
		}
		have := int64(len(r.buf))
		if have >= r.size {
			return r.buf[off:], r.size, nil
		}
		if have-off > maxLine {
			return nil, off, fmt.Errorf("line at offset %d is longer than %d MiB", off, maxLine>>20)
		}
		// Read as much again as is held (at least a chunk), to the end at most.
		n := min(max(int64(headChunk), have), r.size-have)
		var buf []byte
		if int64(cap(r.buf)) >= have+n {
			buf = r.buf[:have+n]
		} else {
			buf = make([]byte, have+n)
			copy(buf, r.buf)
		}
		got, err := r.f.ReadAt(buf[have:], have)
		r.buf = buf[:have+int64(got)]
		if got == 0 && err != nil {
			if err == io.EOF {
				// The file shrank under us: what is held is all there is.
				r.size = int64(len(r.buf))
				continue
			}
			return nil, off, err
		}
	}
}

// backLines reads the lines of a file from the last to the first. It holds
// only the part of the file from the line it returned to the next one it
// needs, so a long way back costs time, not memory.
type backLines struct {
	r   *fileReader
	pos int64 // the lines before pos are unread
	// win holds bytes [winOff, winOff+len(win)) of the file.
	win    []byte
	winOff int64
}

func newBackLines(r *fileReader) *backLines {
	b := &backLines{r: r, pos: r.size, winOff: r.size}
	if int64(len(r.buf)) == r.size {
		b.win, b.winOff = r.buf, 0
	}
	return b
}

// prev returns the line before the one it returned last (first: the last
// line), without its line ending, and whether it ended with a newline
// (only the last line of a file can be cut off); io.EOF before the first.
// The line is valid until the next call.
func (b *backLines) prev() (line []byte, complete bool, err error) {
	if b.pos <= 0 {
		return nil, false, io.EOF
	}
	end := b.pos
	if err := b.extend(end - 1); err != nil {
		return nil, false, err
	}
	if b.win[end-1-b.winOff] == '\n' {
		end--
		complete = true
	}
	for {
		if i := bytes.LastIndexByte(b.win[:end-b.winOff], '\n'); i >= 0 {
			start := b.winOff + int64(i) + 1
			b.pos = start
			return bytes.TrimSuffix(b.win[start-b.winOff:end-b.winOff], []byte("\r")), complete, nil
		}
		if b.winOff == 0 {
			b.pos = 0
			return bytes.TrimPrefix(bytes.TrimSuffix(b.win[:end], []byte("\r")), []byte("\xef\xbb\xbf")), complete, nil
		}
		if end-b.winOff > maxLine {
			return nil, false, fmt.Errorf("line ending at offset %d is longer than %d MiB", end, maxLine>>20)
		}
		if err := b.extend(b.winOff - 1); err != nil {
			return nil, false, err
		}
	}
}

// extend reads the file back to offset off, keeping of the window only
// what comes before pos. Each read takes at least a chunk and doubles a
// long line's part held, so a line of n bytes costs O(log n) reads.
func (b *backLines) extend(off int64) error {
	if off >= b.winOff {
		return nil
	}
	keep := b.win[:max(0, b.pos-b.winOff)]
	n := max(int64(tailChunk), int64(len(keep)), b.winOff-off)
	newOff := max(0, b.winOff-n)
	size := b.winOff - newOff + int64(len(keep))
	var buf []byte
	if len(keep) == 0 && size <= int64(len(b.r.tail)) && b.r.tail != nil {
		// The first read from the end, into the reader's own buffer.
		buf, b.r.tail = b.r.tail[:size], nil
	} else {
		buf = make([]byte, size)
	}
	if _, err := b.r.f.ReadAt(buf[:b.winOff-newOff], newOff); err != nil && err != io.EOF {
		return err
	}
	copy(buf[b.winOff-newOff:], keep)
	b.win, b.winOff = buf, newOff
	return nil
}

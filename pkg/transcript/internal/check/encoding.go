package check

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Logs kept in another encoding than UTF-8 text: gzipped (rotated logs,
// .jsonl.gz), or UTF-16 with a byte order mark (Windows editors,
// PowerShell's redirection). Both are read as the UTF-8 text they hold, so
// their findings and line numbers are those of the text.

// decoded returns the reader of the text br holds when it starts as a gzip
// stream or with a UTF-16 byte order mark, nil otherwise. Each is undone
// once: a gzip inside a gzip is binary data.
func (v *File) decoded(br *bufio.Reader) (io.Reader, error) {
	b, _ := br.Peek(2)
	if len(b) < 2 {
		return nil, nil
	}
	switch {
	case b[0] == 0x1f && b[1] == 0x8b && !v.gunzipped:
		v.gunzipped = true
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read %s: gzip data damaged or cut short: %w", v.name, err)
		}
		return gzipReader{zr}, nil
	case (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) && !v.fromUTF16:
		v.fromUTF16 = true
		be := b[0] == 0xfe
		br.Discard(2)
		return &utf16Reader{r: br, be: be}, nil
	}
	return nil, nil
}

// gzipReader says what a read error of a damaged gzip stream is about.
type gzipReader struct{ r *gzip.Reader }

func (g gzipReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip data damaged or cut short: %w", err)
	}
	return n, err
}

// utf16Reader turns UTF-16 into UTF-8. Half a surrogate pair is written as
// the three bytes it would be in UTF-8, which are not UTF-8, so the text
// holding it is reported as invalid-utf8, as the APIs refuse it; an odd
// last byte is written as 0xff for the same reason.
type utf16Reader struct {
	r       *bufio.Reader
	be      bool
	out     []byte
	next    []byte
	pending int32 // a unit read ahead after a high surrogate, or -1
	err     error
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.next) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.next)
	u.next = u.next[n:]
	return n, nil
}

// unit reads one UTF-16 code unit.
func (u *utf16Reader) unit() (rune, bool) {
	if u.pending > 0 {
		c := rune(u.pending - 1)
		u.pending = 0
		return c, true
	}
	var b [2]byte
	n, err := io.ReadFull(u.r, b[:])
	if err != nil {
		if n == 1 {
			u.out = append(u.out, 0xff)
		}
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		u.err = err
		return 0, false
	}
	if u.be {
		return rune(b[0])<<8 | rune(b[1]), true
	}
	return rune(b[1])<<8 | rune(b[0]), true
}

func (u *utf16Reader) fill() {
	u.out = u.out[:0]
	for len(u.out) < 32<<10 {
		c, ok := u.unit()
		if !ok {
			break
		}
		if c >= 0xd800 && c < 0xdc00 {
			if c2, ok := u.unit(); ok {
				if c2 >= 0xdc00 && c2 < 0xe000 {
					u.out = utf8.AppendRune(u.out, utf16.DecodeRune(c, c2))
					continue
				}
				u.pending = int32(c2) + 1
			}
		}
		if c >= 0xd800 && c < 0xe000 {
			u.out = append(u.out, 0xed, byte(0x80|(c>>6)&0x3f), byte(0x80|c&0x3f))
			continue
		}
		u.out = utf8.AppendRune(u.out, c)
	}
	u.next = u.out
}

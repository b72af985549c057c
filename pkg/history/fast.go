package history

import (
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// promptAfter finds the prompt of a run that continued a conversation:
// the first user message with text among the records written from start
// on. The messages the run copied from the one it continues come first and
// keep their own, earlier times, so the first record of the run is found
// by bisecting the file on the records' times, reading a little at each
// step instead of every record, down to a stretch that is read at once.
// ok is false when the times do not allow it (a record without a time near
// its start, times out of order), and the caller reads back from the end
// instead.
func (r *fileReader) promptAfter(start time.Time, from int64) (prompt string, ok bool) {
	lo, hi, best := from, r.size, r.size
	buf := r.scratchBuf()
	for hi-lo > scanWindow {
		mid := lo + (hi-lo)/2
		l, t, err := r.recordFrom(mid, from, buf)
		if err != nil {
			return "", false
		}
		if l >= hi {
			hi = mid
			continue
		}
		if t.IsZero() {
			return "", false
		}
		if !t.Before(start) {
			best, hi = l, l
		} else {
			lo = l + 1
		}
	}
	if lo < hi {
		l, found, err := r.firstFrom(lo, hi, from, start, buf)
		if err != nil {
			return "", false
		}
		if found {
			best = l
		}
	}
	// The prompt is the first record of the run; allow a few more.
	off := best
	for range 4 {
		line, next, err := r.readLine(off)
		if err != nil {
			return "", false
		}
		if isType(line, transcript.TypeMessage) {
			if rec, ok := decodeTail(line); ok && rec.IsPrompt() {
				return rec.Text, true
			}
		}
		off = next
	}
	return "", false
}

// scanWindow is the stretch of a file that promptAfter reads at once
// rather than bisect further: a read of it costs about what two steps of
// bisection do.
const scanWindow = 32 << 10

// timeSpan is how far into a record its time is looked for.
const timeSpan = 256

// scratchBuf is a buffer for a window and the start of a record after it
// (and the byte before it), kept with the reader's buffers.
func (r *fileReader) scratchBuf() []byte {
	if r.scratch == nil {
		r.scratch = make([]byte, 1+scanWindow+timeSpan)
	}
	return r.scratch
}

// firstFrom reads the lines that start in [lo, hi) at once (from is known
// to start one) and returns the start of the first whose record's time is
// not before start; found is false when there is none. A record without a
// time is an error, as it is to the bisection.
func (r *fileReader) firstFrom(lo, hi, from int64, start time.Time, buf []byte) (int64, bool, error) {
	// One byte before lo tells whether a line starts at lo.
	base := lo
	if lo > from {
		base = lo - 1
	}
	n, err := r.f.ReadAt(buf[:min(int64(len(buf)), hi+timeSpan-base, r.size-base)], base)
	if err != nil && err != io.EOF {
		return 0, false, err
	}
	b := buf[:n]
	pos := int64(0) // the offset in b of the next line start, if lo is not one
	if lo > from {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return 0, false, nil
		}
		pos = int64(i) + 1
	}
	for base+pos < hi && pos < int64(len(b)) {
		t := recordTime(b[pos:])
		if t.IsZero() {
			return 0, false, errors.New("a record without a time")
		}
		if !t.Before(start) {
			return base + pos, true, nil
		}
		i := bytes.IndexByte(b[pos:], '\n')
		if i < 0 {
			break
		}
		pos += int64(i) + 1
	}
	return 0, false, nil
}

// recordFrom finds the first line that starts at or after off (the
// file's size if none does; from is known to start one) and reads the
// "time" of its record, which the writer puts among a record's first
// fields; a zero time when it has none there. It reads on from off in
// reads that double, so that a long line costs a few.
func (r *fileReader) recordFrom(off, from int64, buf []byte) (int64, time.Time, error) {
	start := from
	if off > from {
		start = r.size
		chunk := int64(8 << 10)
		for pos := off - 1; pos < r.size; {
			want := buf[:min(chunk, int64(len(buf)))]
			n, err := r.f.ReadAt(want, pos)
			if i := bytes.IndexByte(want[:n], '\n'); i >= 0 {
				start = pos + int64(i) + 1
				if rest := want[i+1 : n]; len(rest) >= timeSpan || bytes.IndexByte(rest, '\n') >= 0 {
					// The record's start is read already.
					return start, recordTime(rest), nil
				}
				break
			}
			if err != nil && err != io.EOF {
				return 0, time.Time{}, err
			}
			if n == 0 {
				break
			}
			pos += int64(n)
			chunk *= 2
		}
	}
	if start >= r.size {
		return r.size, time.Time{}, nil
	}
	n, err := r.f.ReadAt(buf[:timeSpan], start)
	if n == 0 && err != nil {
		return 0, time.Time{}, err
	}
	return start, recordTime(buf[:n]), nil
}

// recordTime reads the "time" field near the start of a record.
func recordTime(b []byte) time.Time {
	if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
		b = b[:nl]
	}
	const key = `"time":"`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return time.Time{}
	}
	b = b[i+len(key):]
	j := bytes.IndexByte(b, '"')
	if j < 0 {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, string(b[:j]))
	if err != nil {
		return time.Time{}
	}
	return t
}

// readLine reads the line that starts at off, wherever it is in the file.
// A short line is read into the reader's scratch buffer and valid until
// the next call.
func (r *fileReader) readLine(off int64) (line []byte, next int64, err error) {
	if off >= r.size {
		return nil, off, io.EOF
	}
	first := r.scratchBuf()[:min(tailChunk, r.size-off)]
	n, err := r.f.ReadAt(first, off)
	if i := bytes.IndexByte(first[:n], '\n'); i >= 0 {
		return bytes.TrimSuffix(first[:i], []byte("\r")), off + int64(i) + 1, nil
	}
	if err != nil && err != io.EOF {
		return nil, off, err
	}
	if n == 0 || off+int64(n) >= r.size {
		return first[:n], r.size, nil
	}
	// A long line: read on in chunks that double.
	buf := append([]byte(nil), first[:n]...)
	chunk := int64(2 * tailChunk)
	for {
		n := min(chunk, r.size-off-int64(len(buf)))
		if n <= 0 {
			return buf, r.size, nil
		}
		part := make([]byte, n)
		got, err := r.f.ReadAt(part, off+int64(len(buf)))
		if i := bytes.IndexByte(part[:got], '\n'); i >= 0 {
			buf = append(buf, part[:i]...)
			return bytes.TrimSuffix(buf, []byte("\r")), off + int64(len(buf)) + 1, nil
		}
		buf = append(buf, part[:got]...)
		if err != nil && err != io.EOF {
			return nil, off, err
		}
		if got == 0 {
			return buf, r.size, nil
		}
		if int64(len(buf)) > maxLine {
			return nil, off, io.ErrShortBuffer
		}
		chunk *= 2
	}
}

package transcript

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Writer writes records, one JSON object a line. Each record goes out in a
// single write call, so a process killed at any moment leaves only whole
// lines and at most one torn last line. After the first failed write every
// later write returns that error: a run must stop rather than go on
// unrecorded.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	f    *os.File
	path string
	// regular is set for a regular file, the only kind Close syncs.
	regular bool
	// final is where Commit puts a file made by CreateTemp.
	final  string
	redact *Redactor
	seq    int
	err    error
	buf    bytes.Buffer
	now    func() time.Time
	// header is the header line, for an observer that comes after it;
	// observe is told of every line written (see Observe).
	header  []byte
	observe func(line []byte)
}

// Create creates (or truncates) the transcript file at path with mode 0600,
// making missing directories with mode 0700: for a path of agentloop's own
// choosing.
func Create(path string, redact *Redactor) (*Writer, error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create transcript directory: %w", err)
		}
	}
	return create(path, redact)
}

// CreateAt's refusals: a file that is not a transcript would be
// overwritten, or the folder is not one.
var (
	ErrNotTranscript = errors.New("the file exists and is not an agentloop transcript")
	ErrNotFolder     = errors.New("not a folder")
	// ErrIsFolder is a path that names a folder where a file was meant.
	ErrIsFolder = errors.New("is a folder")
)

// CreateAt creates the transcript file at a path a person named. Unlike
// Create it makes no directory (a mistyped folder is an error, not a new
// tree), and it replaces an existing regular file only when that file is
// an agentloop transcript (re-running a command with the same path is the
// common case) or overwrite is set: otherwise it returns ErrNotTranscript
// and the file is left as it was. An empty file, a device and a pipe are
// written to.
func CreateAt(path string, redact *Redactor, overwrite bool) (*Writer, error) {
	if err := checkAt(path, overwrite); err != nil {
		return nil, err
	}
	return create(path, redact)
}

// CreateTempAt is CreateAt's checks, then CreateTemp: the file takes the
// path a person named only at Commit.
func CreateTempAt(path string, redact *Redactor, overwrite bool) (*Writer, error) {
	if err := checkAt(path, overwrite); err != nil {
		return nil, err
	}
	return CreateTemp(path, redact)
}

// checkAt refuses what CreateAt refuses.
func checkAt(path string, overwrite bool) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil {
		return fmt.Errorf("create transcript: folder %s: %w", dir, bare(err))
	} else if !fi.IsDir() {
		return fmt.Errorf("create transcript: %s: %w", dir, ErrNotFolder)
	}
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return ErrIsFolder
	}
	if !overwrite {
		if err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			ok, err := IsTranscript(path)
			if err != nil {
				return fmt.Errorf("create transcript: %w", err)
			}
			if !ok {
				return ErrNotTranscript
			}
		}
	}
	return nil
}

// IsTranscript reports whether the file at path starts with an agentloop
// header record, as every transcript agentloop writes does.
func IsTranscript(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	// The header is written with its type first; a header too long to
	// read here is known by that start.
	const peek = 64 << 10
	b, err := io.ReadAll(io.LimitReader(f, peek))
	if err != nil {
		return false, err
	}
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	if bytes.HasPrefix(b, []byte(`{"type":"header"`)) {
		return true, nil
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	var probe struct {
		Type    string `json:"type"`
		Version int    `json:"version"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Type == TypeHeader && probe.Version > 0, nil
}

func create(path string, redact *Redactor) (*Writer, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	// An existing file keeps its mode through O_TRUNC; a transcript is
	// private. A device or a pipe (-o /dev/stderr, a FIFO) is not ours to
	// change: run as root, a chmod would narrow /dev/full for every user.
	regular := fi.Mode().IsRegular()
	if regular {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("create transcript: %w", err)
		}
	}
	w := NewWriter(f, redact)
	w.f, w.path, w.regular = f, path, regular
	return w, nil
}

// openNoFollow opens path for writing, truncated, without following a
// symbolic link planted there: a link to a regular file elsewhere, or to
// nothing yet, is replaced by a file of its own (the file it named is left
// as it was, or never made). A link to a device or a pipe, and the links
// of /dev and /proc (/dev/stdout, /proc/self/fd/1, whatever they lead to),
// are written through, as the file itself would be.
func openNoFollow(path string) (*os.File, error) {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	f, err := os.OpenFile(path, flags|syscall.O_NOFOLLOW, 0o600)
	if !errors.Is(err, syscall.ELOOP) {
		return f, err
	}
	if abs, _ := filepath.Abs(path); strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/") {
		return os.OpenFile(path, flags, 0o600)
	}
	if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return os.OpenFile(path, flags, 0o600)
	}
	if err := os.Remove(path); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
}

// CreateTemp is Create for a transcript that must appear at path whole or
// not at all (one that starts with a copy of another's conversation): it
// is written beside path under a temporary name, "NAME.*.tmp" (mode 0600),
// until Commit moves it into place. A crash before then leaves only the
// temporary file. A path that is not a regular file (a device, a pipe) is
// written in place, as Create does: it is not the writer's to replace.
func CreateTemp(path string, redact *Redactor) (*Writer, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return Create(path, redact)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create transcript directory: %w", err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	w := NewWriter(f, redact)
	w.f, w.path, w.regular, w.final = f, f.Name(), true, path
	return w, nil
}

// Commit syncs a file made by CreateTemp and renames it to the path it was
// made for, where later records go.
func (w *Writer) Commit() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.final == "" || w.f == nil {
		return nil
	}
	if err := w.f.Sync(); err != nil {
		w.err = fmt.Errorf("sync transcript %s: %w", w.path, bare(err))
		return w.err
	}
	if err := os.Rename(w.path, w.final); err != nil {
		w.err = fmt.Errorf("create transcript %s: %w", w.final, bare(err))
		return w.err
	}
	w.path, w.final = w.final, ""
	return nil
}

// NewWriter writes records to w. A nil redact still removes anything shaped
// like a common credential.
func NewWriter(w io.Writer, redact *Redactor) *Writer {
	return &Writer{w: w, redact: redact, now: time.Now}
}

// Path is the file's path, or "" for a Writer over an io.Writer.
func (w *Writer) Path() string { return w.path }

// Seq is the sequence number of the last message written.
func (w *Writer) Seq() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}

// Err is the first write error, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// NewID returns a random transcript id.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WriteHeader writes the header, filling in type, version, id and time when
// they are unset.
func (w *Writer) WriteHeader(h Header) error {
	h.Type = TypeHeader
	if h.Version == 0 {
		h.Version = Version
	}
	if h.ID == "" {
		h.ID = NewID()
	}
	if h.Time.IsZero() {
		h.Time = w.now().UTC()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(h)
}

// WriteMessage writes a message record. A zero Seq is replaced by the next
// sequence number; a zero Time by the current time.
// The number is taken and the line written under one lock, so concurrent
// writers cannot put the lines out of order, and a record that fails to
// encode uses no number.
func (w *Writer) WriteMessage(m Message) error {
	m.Type = TypeMessage
	w.mu.Lock()
	defer w.mu.Unlock()
	if m.Seq == 0 {
		m.Seq = w.seq + 1
	}
	if m.Time.IsZero() {
		m.Time = w.now().UTC()
	}
	if err := w.writeLocked(m); err != nil {
		return err
	}
	w.seq = max(w.seq, m.Seq)
	return nil
}

// WriteMessages writes several message records, as WriteMessage does, in a
// single write call: a turn of several output items is on disk whole or
// not at all (but for a torn last line), never cut between two items that
// the API accepts only together.
func (w *Writer) WriteMessages(ms ...Message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	var all bytes.Buffer
	seq := w.seq
	for _, m := range ms {
		m.Type = TypeMessage
		if m.Seq == 0 {
			m.Seq = seq + 1
		}
		if m.Time.IsZero() {
			m.Time = w.now().UTC()
		}
		line, err := w.encodeLocked(m)
		if err != nil {
			return err
		}
		all.Write(line)
		seq = max(seq, m.Seq)
	}
	if err := w.writeLineLocked(all.Bytes()); err != nil {
		return err
	}
	w.seq = seq
	return nil
}

// WriteResult writes a result record, filling in its type and, when
// unset, its time.
func (w *Writer) WriteResult(r CallResult) error {
	r.Type = TypeResult
	if r.Time.IsZero() {
		r.Time = w.now().UTC()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(r)
}

// WriteEnd writes the end record.
func (w *Writer) WriteEnd(e End) error {
	e.Type = TypeEnd
	if e.Time.IsZero() {
		e.Time = w.now().UTC()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(e)
}

// writeLocked encodes, redacts and writes one record; w.mu is held.
func (w *Writer) writeLocked(rec any) error {
	if w.err != nil {
		return w.err
	}
	line, err := w.encodeLocked(rec)
	if err != nil {
		return err
	}
	return w.writeLineLocked(line)
}

// encodeLocked encodes and redacts one record into a line that is valid
// until the next call; w.mu is held.
func (w *Writer) encodeLocked(rec any) ([]byte, error) {
	w.buf.Reset()
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		// A record that cannot be encoded is a bug in the caller, not a disk
		// fault; nothing was written, later records may still go out.
		return nil, fmt.Errorf("encode transcript record: %w", err)
	}
	return w.redact.Redact(w.buf.Bytes()), nil
}

// writeLineLocked writes encoded lines in one call; w.mu is held.
func (w *Writer) writeLineLocked(lines []byte) error {
	if _, err := w.w.Write(lines); err != nil {
		w.err = fmt.Errorf("write transcript %s: %w", w.name(), bare(err))
		return w.err
	}
	if w.header == nil && bytes.HasPrefix(lines, []byte(`{"type":"header"`)) {
		w.header = bytes.Clone(lines)
	}
	if w.observe != nil {
		for line := range bytes.Lines(lines) {
			w.observe(line)
		}
	}
	return nil
}

// Observe has f told of every line the writer puts in the file from now
// on, as written (redacted), once it is written, in file order; f is
// first told of the header if it is already written. f is called with the
// writer's lock held: it must be quick and must not write to w. Lines
// written before Observe other than the header (a continued run's copy of
// its conversation) are not told of.
func (w *Writer) Observe(f func(line []byte)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.observe = f
	if f != nil && w.header != nil {
		f(w.header)
	}
}

func (w *Writer) name() string {
	if w.path == "" {
		return "(stream)"
	}
	return w.path
}

// Close syncs and closes the file. It returns the first write error if there
// was one.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	var serr error
	if w.regular {
		// fsync of a terminal or a pipe fails with EINVAL; there is
		// nothing on disk to make durable.
		serr = w.f.Sync()
	}
	cerr := w.f.Close()
	w.f = nil
	if w.final != "" {
		// Never committed: the file is not the transcript it was meant to be.
		_ = os.Remove(w.path)
	}
	switch {
	case w.err != nil:
		return w.err
	case serr != nil:
		return fmt.Errorf("sync transcript %s: %w", w.path, bare(serr))
	case cerr != nil:
		return fmt.Errorf("close transcript %s: %w", w.path, bare(cerr))
	}
	return nil
}

// bare drops the operation and path an *os.File error repeats, so that a
// message names the file once.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

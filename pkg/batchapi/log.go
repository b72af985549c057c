package batchapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// LogName is the file in OUTDIR that records the rounds and their batches.
const LogName = "rounds.jsonl"

// ResultsFolder holds, under OUTDIR, each ended batch's results as read.
const ResultsFolder = "batches"

// What a record of the log says happened to a batch.
const (
	// EventSubmit: a batch is about to be created, with these requests.
	// Written before anything is sent.
	EventSubmit = "submit"
	// EventFile: its input file was uploaded (OpenAI).
	EventFile = "file"
	// EventBatch: the provider made it; its id.
	EventBatch = "batch"
	// EventStatus: its status changed.
	EventStatus = "status"
	// EventResults: it ended, and its results are saved in Results.
	EventResults = "results"
	// EventError: it could not be made, or its results not read.
	EventError = "error"
)

// Entry is one request of a batch as the log keeps it.
type Entry struct {
	Item     string `json:"item"`
	CustomID string `json:"custom_id"`
	// SHA256 is the hash of the request's body: a later run takes the
	// answer only for the same request.
	SHA256 string `json:"sha256"`
}

// Record is one line of the log.
type Record struct {
	Event string `json:"event"`
	// Batch is the batch's number in this OUTDIR, from 1.
	Batch int       `json:"batch"`
	Round int       `json:"round,omitempty"`
	Time  time.Time `json:"time"`

	Provider string  `json:"provider,omitempty"`
	Endpoint string  `json:"endpoint,omitempty"`
	Model    string  `json:"model,omitempty"`
	Requests []Entry `json:"requests,omitempty"`

	FileID    string           `json:"input_file_id,omitempty"`
	BatchID   string           `json:"batch_id,omitempty"`
	Status    string           `json:"status,omitempty"`
	Counts    map[string]int64 `json:"counts,omitempty"`
	CreatedAt *time.Time       `json:"created_at,omitempty"`
	ExpiresAt *time.Time       `json:"expires_at,omitempty"`
	// Results is the file of the results, relative to OUTDIR.
	Results string `json:"results,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Log appends records to OUTDIR/rounds.jsonl, each synced before the
// call that follows it.
type Log struct {
	mu  sync.Mutex
	dir string
	f   *os.File
}

// OpenLog opens the log of the folder dir for appending. A last line cut
// short by a kill is cut off first, so that the next record starts a line.
func OpenLog(dir string) (*Log, error) {
	path := filepath.Join(dir, LogName)
	if data, err := os.ReadFile(path); err == nil && len(data) > 0 && data[len(data)-1] != '\n' {
		if err := os.Truncate(path, int64(bytes.LastIndexByte(data, '\n')+1)); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &Log{dir: dir, f: f}, nil
}

// Write appends a record and syncs it.
func (l *Log) Write(r Record) error {
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", l.f.Name(), err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", l.f.Name(), err)
	}
	return nil
}

// Close closes the log.
func (l *Log) Close() error { return l.f.Close() }

// SaveResults writes an ended batch's results under OUTDIR, synced, and
// returns the file's path relative to OUTDIR.
func (l *Log) SaveResults(number int, id string, rs []Result) (string, error) {
	if err := os.MkdirAll(filepath.Join(l.dir, ResultsFolder), 0o755); err != nil {
		return "", err
	}
	rel := filepath.Join(ResultsFolder, fmt.Sprintf("%04d-%s.jsonl", number, id))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range rs {
		if err := enc.Encode(r); err != nil {
			return "", err
		}
	}
	path := filepath.Join(l.dir, rel)
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(b.Bytes())
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return rel, werr
}

// LoadResults reads the results a batch's record names.
func LoadResults(dir, rel string) ([]Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	var out []Result
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Result
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", rel, n+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Batch is what the log says of one batch.
type Batch struct {
	Number   int
	Round    int
	Provider string
	Endpoint string
	Model    string
	// Started is when its submit record was written.
	Started  time.Time
	Requests []Entry
	FileID   string
	ID       string
	Status   string
	Counts   map[string]int64
	// CreatedAt is when the provider made it; ExpiresAt when its window
	// closes.
	CreatedAt, ExpiresAt time.Time
	// Results is the file of its results once read, relative to OUTDIR.
	Results string
	Error   string
}

// InFlight reports whether the batch may still be running at the
// provider: made (or perhaps made), and its results not read.
func (b *Batch) InFlight() bool { return b.Results == "" && b.Error == "" }

// ReadLog reads the log of the folder dir: its batches in order. A folder
// without one has none. A last line cut short (a kill while it was
// written) is left out; any other line that is not a record is an error.
func ReadLog(dir string) ([]*Batch, error) {
	path := filepath.Join(dir, LogName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	byNum := map[int]*Batch{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	complete := len(data) > 0 && data[len(data)-1] == '\n'
	var lines [][]byte
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	for i, line := range lines {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || r.Batch <= 0 {
			if i == len(lines)-1 && !complete {
				break
			}
			return nil, fmt.Errorf("%s:%d: not a record of a batch", path, i+1)
		}
		b := byNum[r.Batch]
		if b == nil {
			b = &Batch{Number: r.Batch}
			byNum[r.Batch] = b
		}
		switch r.Event {
		case EventSubmit:
			b.Round, b.Provider, b.Endpoint, b.Model, b.Started, b.Requests = r.Round, r.Provider, r.Endpoint, r.Model, r.Time, r.Requests
		case EventFile:
			b.FileID = r.FileID
		case EventBatch, EventStatus:
			if r.BatchID != "" {
				b.ID = r.BatchID
			}
			if r.Status != "" {
				b.Status = r.Status
			}
			if r.Counts != nil {
				b.Counts = r.Counts
			}
			if r.CreatedAt != nil {
				b.CreatedAt = *r.CreatedAt
			}
			if r.ExpiresAt != nil {
				b.ExpiresAt = *r.ExpiresAt
			}
		case EventResults:
			b.Results = r.Results
		case EventError:
			b.Error = r.Error
		}
	}
	out := make([]*Batch, 0, len(byNum))
	for _, b := range byNum {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

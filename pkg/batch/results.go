package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// ResultsName is the results file's name in OUTDIR.
const ResultsName = "results.jsonl"

// Result is how one item ended: a line of results.jsonl.
type Result struct {
	ID string `json:"id"`
	// Line is the item's line in the input.
	Line int `json:"line,omitempty"`
	// Answer is the final answer (empty unless Reason is stop, max_tokens
	// or refusal).
	Answer string `json:"answer"`
	// AnswerJSON is the answer's JSON value when the item's answer had to
	// match a schema and did (compact, on one line); SchemaOK says whether
	// it did, absent for an item without a schema.
	AnswerJSON json.RawMessage `json:"answer_json,omitempty"`
	SchemaOK   *bool           `json:"schema_ok,omitempty"`
	// Reason is the transcript's end reason.
	Reason string `json:"reason"`
	// ExitCode is the status `agentloop run` would have exited with.
	ExitCode int              `json:"exit_code"`
	Steps    int              `json:"steps"`
	Usage    transcript.Usage `json:"usage"`
	Cost     *float64         `json:"cost,omitempty"`
	// CostLive is what the item's requests would have cost sent one by
	// one, when they went out in a provider's Batch API at its price
	// (Cost); nil for a live run.
	CostLive   *float64        `json:"cost_live,omitempty"`
	DurationMS int64           `json:"duration_ms"`
	Error      string          `json:"error,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	// Transcript is the item's transcript, relative to OUTDIR.
	Transcript string `json:"transcript,omitempty"`
	Provider   string `json:"provider,omitempty"`
	Model      string `json:"model,omitempty"`
	// Attempts counts the runs the item took: more than 1 when it was
	// continued after an interrupt or retried.
	Attempts int       `json:"attempts"`
	Time     time.Time `json:"time"`
}

// Class is what an item's ending means for the batch.
type Class int

// Classes, in the order a batch's exit status weighs them.
const (
	Answered Class = iota // the model answered (exit 0)
	Budget                // a budget ran out (exit 3)
	Failed                // anything else
)

// budgetReasons are the end reasons of a budget that ran out.
var budgetReasons = map[string]bool{
	wire.ReasonMaxSteps: true, "budget": true, "context": true,
}

// Class classifies the result by its reason and exit status: an answer
// with exit 0, a budget with exit 3, else a failure.
func (r *Result) Class() Class {
	switch {
	case r.Reason == wire.ReasonStop && r.ExitCode == 0:
		return Answered
	case budgetReasons[r.Reason] && r.ExitCode == 3:
		return Budget
	}
	return Failed
}

// ReasonUnrecorded is the reason of an item whose run could not be
// recorded: its transcript could not be written or kept in OUTDIR (a full
// disk, a file size limit, a folder made read-only). It is a failure of
// this machine, not the item's outcome, so the next run runs the item
// again, --retry-failed or not. It is no transcript's end reason: the
// transcript is what could not be written.
const ReasonUnrecorded = "unrecorded"

// Retryable reports whether --retry-failed runs the item again: it ended
// in an error (the API failed after its retries, a time limit, a tool's
// fault), not with something the model said.
func (r *Result) Retryable() bool { return r.Reason == wire.ReasonError }

// Unrecorded reports whether the item's run could not be recorded
// (ReasonUnrecorded): any rerun runs it.
func (r *Result) Unrecorded() bool { return r.Reason == ReasonUnrecorded }

// Brief is the result without what only the results file needs, its
// answer and metadata: what a batch keeps of each item for its summary.
func (r Result) Brief() Result {
	r.Answer, r.Metadata = "", nil
	return r
}

// Finished reports whether the result ends its item: an interrupted item
// is not, and is continued by the next run.
func (r *Result) Finished() bool { return r.Reason != wire.ReasonInterrupted }

// ResultsFile is results.jsonl opened for appending. Each line goes out in
// one write, so a kill at any moment leaves every line written whole and
// at most a last line cut short, which the next OpenResults cuts off; and
// each is synced before Append returns, so a machine that goes down keeps
// it too. Appends that come together share one sync (a group commit): the
// items of a batch finish at once, and a sync each, one after another,
// would be what the batch waits for.
type ResultsFile struct {
	mu      sync.Mutex // the file's end: size, lines, err
	f       *os.File
	path    string
	size    int64
	lines   int // lines written
	err     error
	syncMu  sync.Mutex // one sync at a time
	synced  int        // lines known to be on disk
	syncErr error
}

// Torn says that the results file ended in a line cut short, and where.
type Torn struct {
	Line  int
	Bytes int
}

// OpenResults opens (creating it, 0600) the results file at path for
// appending and reads its results in file order. A last line cut short is
// truncated away and reported; any other line that is not a result is an
// error naming it.
func OpenResults(path string) (*ResultsFile, []Result, *Torn, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open results: %w", err)
	}
	results, good, torn, err := readResults(f, path)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	if torn != nil {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, nil, fmt.Errorf("cut the torn last line of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, nil, fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return &ResultsFile{f: f, path: path, size: good}, results, torn, nil
}

// ReadResults reads a results file without changing it; a last line cut
// short is left out and reported.
func ReadResults(path string) ([]Result, *Torn, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	results, _, torn, err := readResults(f, path)
	return results, torn, err
}

// readResults reads the lines of r; good is the length of the whole lines.
func readResults(r io.Reader, path string) (results []Result, good int64, torn *Torn, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			if len(line) > 0 {
				return results, good, &Torn{Line: n, Bytes: len(line)}, nil
			}
			return results, good, nil, nil
		}
		if err != nil {
			return nil, 0, nil, fmt.Errorf("read %s: %w", path, err)
		}
		good += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var res Result
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&res); err != nil || res.ID == "" || res.Reason == "" {
			why := "no id or reason"
			if err != nil {
				why = err.Error()
			}
			return nil, 0, nil, fmt.Errorf("%s:%d: not a result line (%s); it was not written by agentloop batch: fix or remove it", path, n, why)
		}
		// A line an earlier version wrote may carry a cost's float noise.
		res.Cost, res.CostLive = roundCost(res.Cost), roundCost(res.CostLive)
		results = append(results, res)
	}
}

// roundCost is a result's cost as it is written (transcript.RoundCost), in a
// value of its own.
func roundCost(c *float64) *float64 {
	if c == nil {
		return nil
	}
	r := transcript.RoundCost(*c)
	return &r
}

// Append writes one result as one line, in one write, and returns once it
// is synced. After a failed write or sync every later Append fails too.
func (f *ResultsFile) Append(r Result) error {
	r.Cost, r.CostLive = roundCost(r.Cost), roundCost(r.CostLive)
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode result %s: %w", r.ID, err)
	}
	line = append(line, '\n')
	f.mu.Lock()
	if f.err != nil {
		f.mu.Unlock()
		return f.err
	}
	n, err := f.f.Write(line)
	if err != nil {
		// A short write would leave a torn line under the next one: cut
		// it off, so the file stays whole lines.
		if n > 0 {
			_ = f.f.Truncate(f.size)
		}
		f.err = fmt.Errorf("write %s: %w", f.path, bare(err))
		f.mu.Unlock()
		return f.err
	}
	f.size += int64(n)
	f.lines++
	mine := f.lines
	f.mu.Unlock()
	return f.sync(mine)
}

// sync returns once line number upTo is on disk: a sync that began after
// it was written covers it, whoever made it.
func (f *ResultsFile) sync(upTo int) error {
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	if f.synced >= upTo || f.syncErr != nil {
		return f.syncErr
	}
	f.mu.Lock()
	target := f.lines
	f.mu.Unlock()
	if err := f.f.Sync(); err != nil {
		f.syncErr = fmt.Errorf("sync %s: %w", f.path, bare(err))
		f.mu.Lock()
		if f.err == nil {
			f.err = f.syncErr
		}
		f.mu.Unlock()
		return f.syncErr
	}
	f.synced = target
	return nil
}

// Close closes the file.
func (f *ResultsFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.f.Close()
}

// Latest keeps the last result of each id, the one a rerun wrote when it
// retried an item.
func Latest(results []Result) map[string]Result {
	m := make(map[string]Result, len(results))
	for _, r := range results {
		m[r.ID] = r
	}
	return m
}

// bare drops the operation and path an *os.File error repeats.
func bare(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

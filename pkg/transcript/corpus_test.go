package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const corpusDir = "../../testdata/corpus"

// corpusRecord is one line of the corpus with the API's verdict on it.
type corpusRecord struct {
	File    string
	Line    int
	API     string
	Status  string // "" where none was recorded
	Grammar string // "yes", "no" or ""
	Error   string
	Input   string // how the test feeds it to Validate
	Body    []byte
}

// grammarCodes are the codes the corpus's grammar rejections must be flagged
// with, by file:line.
var grammarCodes = map[string]string{
	"pydantic-ai-responses.jsonl:11": "unanswered-call",
	"pydantic-ai-responses.jsonl:62": "orphan-reasoning",
}

// pairingCodes are the codes that speak of tool-call grammar; a record
// rejected for another reason must not get them.
var pairingCodes = []string{
	"unanswered-call", "pending-call", "orphan-result", "unknown-result-id", "duplicate-result",
	"duplicate-call-id", "reused-call-id", "result-not-first", "orphan-reasoning",
}

// loadCorpus reads MANIFEST.tsv and each record, unwrapped to what the API
// received: pydantic-ai's {"request": …}, tau-bench's traj.
func loadCorpus(t testing.TB) []corpusRecord {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byFile := map[string][][]byte{}
	var recs []corpusRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for first := true; sc.Scan(); first = false {
		if first {
			continue
		}
		col := strings.Split(sc.Text(), "\t")
		line, err := strconv.Atoi(col[1])
		if err != nil {
			t.Fatalf("MANIFEST: %v", err)
		}
		r := corpusRecord{File: col[0], Line: line, API: col[2], Status: col[3], Grammar: col[4], Error: col[6]}
		lines, ok := byFile[r.File]
		if !ok {
			data, err := os.ReadFile(filepath.Join(corpusDir, r.File))
			if err != nil {
				t.Fatal(err)
			}
			lines = bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			byFile[r.File] = lines
		}
		raw := lines[line-1]
		var wrap struct {
			Request json.RawMessage `json:"request"`
			Traj    json.RawMessage `json:"traj"`
		}
		if err := json.Unmarshal(raw, &wrap); err != nil {
			t.Fatalf("%s:%d: %v", r.File, line, err)
		}
		switch {
		case wrap.Request != nil:
			r.Input, r.Body = InputRequest, wrap.Request
		case wrap.Traj != nil:
			r.Input, r.Body = InputRequest, wrap.Traj
		default:
			r.Input, r.Body = InputConversations, raw
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func (r corpusRecord) accepted() bool {
	return r.Status == "200" || r.Status == "" && r.Grammar == ""
}

func (r corpusRecord) name() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

func validateBytes(t testing.TB, name string, body []byte, opts Options) ([]Finding, Stats) {
	t.Helper()
	var fs []Finding
	st, err := Validate(name, bytes.NewReader(body), opts, func(f Finding) { fs = append(fs, f) })
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fs, st
}

// TestCorpus holds the checker to the real APIs' verdicts: what they
// accepted has no error, what they refused for a grammar reason is flagged
// with the right code, and what they refused for another reason gets no
// pairing code.
func TestCorpus(t *testing.T) {
	recs := loadCorpus(t)
	if len(recs) < 600 {
		t.Fatalf("corpus has %d records, want the whole MANIFEST", len(recs))
	}
	var accepted, rejected, other int
	for _, r := range recs {
		fs, _ := validateBytes(t, r.name(), r.Body, Options{Input: r.Input})
		codes := map[string]bool{}
		for _, f := range fs {
			codes[f.Code] = true
		}
		switch {
		case r.Grammar == "yes":
			rejected++
			want, ok := grammarCodes[r.name()]
			if !ok {
				t.Errorf("%s: a grammar rejection with no expected code: %s", r.name(), r.Error)
				continue
			}
			if !hasError(fs, want) {
				t.Errorf("%s: refused by the API (%s), want error [%s], got %v", r.name(), r.Error, want, fs)
			}
		case r.Grammar == "no":
			other++
			for _, f := range fs {
				if slices.Contains(pairingCodes, f.Code) {
					t.Errorf("%s: refused for a non-grammar reason, but flagged: %v", r.name(), f)
				}
			}
		case r.accepted():
			accepted++
			for _, f := range fs {
				if f.Severity == Error {
					t.Errorf("%s: accepted by the API, but: %v", r.name(), f)
				}
			}
		}
	}
	t.Logf("%d accepted records without error, %d grammar rejections flagged, %d other rejections unflagged", accepted, rejected, other)
}

func hasError(fs []Finding, code string) bool {
	for _, f := range fs {
		if f.Code == code && f.Severity == Error {
			return true
		}
	}
	return false
}

// TestCorpusFiles feeds the bare-request and fine-tuning files whole, as a
// user would.
func TestCorpusFiles(t *testing.T) {
	for _, name := range []string{
		"pydantic-ai_anthropic_requests_200.jsonl",
		"pydantic-ai_openai-compatible_requests_200.jsonl",
		"openai-cookbook_drone_training_EXCERPT.jsonl",
	} {
		data, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			t.Fatal(err)
		}
		fs, st := validateBytes(t, name, data, Options{})
		for _, f := range fs {
			if f.Severity == Error {
				t.Errorf("%v", f)
			}
		}
		if st.Conversations == 0 || st.ToolCalls == 0 {
			t.Errorf("%s: %+v: nothing checked", name, st)
		}
	}
}

// TestCorpusPaths: a request body gets the same findings streamed as a
// whole-file document and read as one JSONL line.
func TestCorpusPaths(t *testing.T) {
	for _, r := range loadCorpus(t) {
		if r.Input != InputRequest || bytes.HasPrefix(r.Body, []byte("[")) {
			continue
		}
		streamed, _ := validateBytes(t, r.name(), r.Body, Options{Input: InputRequest})
		line, _ := validateBytes(t, r.name(), append(slices.Clip(r.Body), '\n'), Options{Input: InputConversations})
		if a, b := codesOf(streamed), codesOf(line); !slices.Equal(a, b) {
			t.Errorf("%s: streamed %v, as a line %v", r.name(), a, b)
		}
	}
}

func codesOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Severity.String()+" "+f.Code+" "+f.Path)
	}
	slices.Sort(out)
	return out
}

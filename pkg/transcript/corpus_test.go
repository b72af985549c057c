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
	var accepted, rejected, other, unchecked int
	for _, r := range recs {
		// Bodies of shapes the rules do not cover (Gemini, Cohere, xAI) are
		// counted as not checked, which is what the rules say of them.
		fs, st := validateBytes(t, r.name(), r.Body, Options{Input: r.Input, AllowUnchecked: true})
		unchecked += st.Unchecked
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
	if unchecked == 0 {
		t.Error("no record counted as not checked")
	}
	t.Logf("%d accepted records without error, %d grammar rejections flagged, %d other rejections unflagged, %d not checked", accepted, rejected, other, unchecked)
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

// TestCorpusFilesWhole feeds every corpus file whole, records wrapped as
// they are ({"source", "status", "request"}, tau-bench's {"traj"}), as a user
// would: each record is a conversation, and the only errors are the
// grammar rejections, each flagged on its line with its code and confirmed
// by the recorded 400.
func TestCorpusFilesWhole(t *testing.T) {
	recs := loadCorpus(t)
	byFile := map[string][]corpusRecord{}
	for _, r := range recs {
		byFile[r.File] = append(byFile[r.File], r)
	}
	for file, rs := range byFile {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpusDir, file))
			if err != nil {
				t.Fatal(err)
			}
			fs, st := validateBytes(t, file, data, Options{AllowUnchecked: true})
			if st.Conversations != len(rs) {
				t.Errorf("%d conversations, want one a record: %d", st.Conversations, len(rs))
			}
			flagged := map[string]bool{}
			for _, f := range fs {
				if f.Severity != Error {
					continue
				}
				name := fmt.Sprintf("%s:%d", file, f.Line)
				want, ok := grammarCodes[name]
				switch {
				case !ok:
					t.Errorf("%v: an error on a record the API did not refuse for its grammar", f)
				case f.Code == want:
					flagged[name] = true
					if !f.Confirmed() {
						t.Errorf("%v: not confirmed by the recorded 400", f)
					}
				}
			}
			for _, r := range rs {
				if r.Grammar == "yes" && !flagged[r.name()] {
					t.Errorf("%s: refused by the API (%s), not flagged [%s]", r.name(), r.Error, grammarCodes[r.name()])
				}
			}
		})
	}
}

// pathBodies are request bodies whose keys the two ways of reading a body
// must agree on: messages under traj, more than one array of messages, a
// top-level system that decides the shape, tools before and after the
// messages, values of the wrong kind.
var pathBodies = []string{
	`{"task_id":1,"traj":[` + oUser + `,` + oCall1 + `,` + oUser + `]}`,
	`{"traj":[` + oUser + `,` + oCall1 + `]}`,
	`{"model":"m","traj":[` + oUser + `,` + oCall1 + `],"messages":[` + oUser + `]}`,
	`{"model":"m","messages":[` + oUser + `,` + oCall1 + `,` + oTool1 + `],"input":[{"type":"function_call_output","call_id":"x","output":"o"}]}`,
	`{"model":"m","input":[{"type":"function_call_output","call_id":"x","output":"o"}],"messages":[` + oUser + `,` + oCall1 + `,` + oTool1 + `]}`,
	`{"model":"m","input":"hello"}`,
	`{"model":"m","input":"hello","messages":[` + oUser + `,` + oCall1 + `]}`,
	`{"model":"m","messages":"hello"}`,
	`{"model":"m"}`,
	`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
	`{"system":"be brief","messages":[{"role":"user","content":" "},{"role":"assistant","content":"ok"}]}`,
	`{"messages":[{"role":"user","content":" "},{"role":"assistant","content":"ok"}],"system":"be brief"}`,
	`{"messages":[{"role":"user","content":" "},{"role":"assistant","content":"ok"}]}`,
	`{"tools":[{"type":"function","function":{"name":"get_weather"}}],"messages":[` + oUser + `,` + oCall("call_1", "f", `"{}"`) + `,` + oTool1 + `,` + oCall("call_2", "f", `"{}"`) + `,` + oTool("call_2") + `]}`,
	`{"messages":[` + oUser + `,` + oCall("call_1", "f", `"{}"`) + `,` + oTool1 + `,` + oCall("call_2", "f", `"{}"`) + `,` + oTool("call_2") + `],"tools":[{"type":"function","function":{"name":"get_weather"}}]}`,
	`{"tools":null,"messages":[` + oUser + `,` + oCall1 + `,` + oTool1 + `]}`,
	`{"messages":[` + aUser + `,` + aCall1 + `,` + aRes1 + `],"thinking":{"type":"enabled","budget_tokens":1024},"model":"m"}`,
	`{"input":[{"type":"function_call_output","call_id":"x","output":"o"}],"previous_response_id":"resp_1"}`,
	`{"input":[{"type":"function_call_output","call_id":"x","output":"o"}],"previous_response_id":null}`,
}

// TestCorpusPaths: a request body gets the same findings streamed as a
// whole-file document, pretty-printed or not, and read as one JSONL line.
func TestCorpusPaths(t *testing.T) {
	type body struct {
		name string
		data []byte
	}
	var bodies []body
	for i, b := range pathBodies {
		bodies = append(bodies, body{fmt.Sprintf("pathBodies[%d]", i), []byte(b)})
	}
	for _, r := range loadCorpus(t) {
		if r.Input == InputRequest && !bytes.HasPrefix(r.Body, []byte("[")) {
			bodies = append(bodies, body{r.name(), r.Body})
		}
	}
	for _, b := range bodies {
		var flat, pretty bytes.Buffer
		if err := json.Compact(&flat, b.data); err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		if err := json.Indent(&pretty, b.data, "", "  "); err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		line, _ := validateBytes(t, b.name, append(flat.Bytes(), '\n'), Options{Input: InputConversations})
		streamed, _ := validateBytes(t, b.name, flat.Bytes(), Options{Input: InputRequest})
		if a, b2 := findingsOf(streamed, true), findingsOf(line, true); !slices.Equal(a, b2) {
			t.Errorf("%s: streamed\n%s\nas a line\n%s", b.name, strings.Join(a, "\n"), strings.Join(b2, "\n"))
		}
		streamed, _ = validateBytes(t, b.name, pretty.Bytes(), Options{Input: InputRequest})
		if a, b2 := findingsOf(streamed, false), findingsOf(line, false); !slices.Equal(a, b2) {
			t.Errorf("%s: pretty-printed\n%s\nas a line\n%s", b.name, strings.Join(a, "\n"), strings.Join(b2, "\n"))
		}
	}
}

// findingsOf lists what two readings of one body must agree on, in order;
// the line only when both have the body on one line.
func findingsOf(fs []Finding, withLine bool) []string {
	var out []string
	for _, f := range fs {
		if !withLine {
			f.Line = 0
		}
		out = append(out, fmt.Sprintf("%d %s %s %s %v", f.Line, f.Severity, f.Path, f.String(), f.IDs))
	}
	return out
}

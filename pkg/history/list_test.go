package history

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// folder writes runs named as agentloop names them, one a minute, and
// returns the folder.
func folder(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		start := t0.Add(time.Duration(i) * time.Minute)
		id := fmt.Sprintf("%04x%012x", i, i)
		run{id: id, start: start, prompt: fmt.Sprintf("question %d", i), answer: fmt.Sprintf("answer %d", i), end: "stop"}.
			write(t, filepath.Join(dir, start.Format("20060102T150405Z")+"-"+id+".jsonl"))
	}
	return dir
}

func ids(entries []*Entry) string {
	var s []string
	for _, e := range entries {
		if e.ID() == "" {
			s = append(s, filepath.Base(e.Path))
		} else {
			s = append(s, e.ShortID())
		}
	}
	return strings.Join(s, " ")
}

func TestList(t *testing.T) {
	dir := folder(t, 30)
	// A file named otherwise is placed by its header, whatever its name.
	run{id: "zzzzzzzz", start: t0.Add(25*time.Minute + 30*time.Second), prompt: "renamed", end: "stop"}.write(t, filepath.Join(dir, "mine.jsonl"))
	// A named file whose run started later than its name says (within the slack).
	run{id: "late0000", start: t0.Add(28*time.Minute + 50*time.Second), prompt: "late", end: "stop"}.write(t, filepath.Join(dir, t0.Add(28*time.Minute).Format("20060102T150405Z")+"-late0000.jsonl"))
	writeFile(t, filepath.Join(dir, "notes.txt"), "x")
	old := t0.Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "notes.txt"), old, old)

	tests := []struct {
		name string
		q    Query
		want string
	}{
		{"the newest", Query{Limit: 3}, "001d0000 late0000 001c0000"},
		{"a file named otherwise among them", Query{Limit: 6}, "001d0000 late0000 001c0000 001b0000 001a0000 zzzzzzzz"},
		{"since", Query{Since: t0.Add(27 * time.Minute)}, "001d0000 late0000 001c0000 001b0000"},
		{"since with a limit", Query{Since: t0.Add(27 * time.Minute), Limit: 2}, "001d0000 late0000"},
		{"search reads every file", Query{Search: "QUESTION 1", Limit: 3}, "0013000 0012000 0011000"},
		{"search in answers", Query{Search: "answer 7"}, "00070000"},
		{"all, the foreign file last", Query{Limit: 0}, ""},
		{"runs only", Query{Limit: 100, RunsOnly: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := List(dir, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			switch tt.name {
			case "all, the foreign file last":
				if len(got) != 33 || filepath.Base(got[32].Path) != "notes.txt" {
					t.Errorf("%d entries, last %s", len(got), ids(got[len(got)-1:]))
				}
			case "runs only":
				if len(got) != 32 {
					t.Errorf("%d runs, want 32", len(got))
				}
			default:
				if ids(got) != strings.ReplaceAll(tt.want, "0013000 0012000 0011000", "00130000 00120000 00110000") {
					t.Errorf("got %s, want %s", ids(got), tt.want)
				}
			}
		})
	}
}

// The newest runs of a large folder are found without reading the others.
func TestListReadsOnlyWhatItShows(t *testing.T) {
	dir := folder(t, 40)
	// Old runs made unreadable: listing the newest must not open them.
	if os.Geteuid() == 0 {
		// Root opens anything; replace their content instead.
		for i := range 30 {
			start := t0.Add(time.Duration(i) * time.Minute)
			writeFile(t, filepath.Join(dir, start.Format("20060102T150405Z")+"-"+fmt.Sprintf("%04x%012x", i, i)+".jsonl"), "garbage")
		}
	} else {
		for i := range 30 {
			start := t0.Add(time.Duration(i) * time.Minute)
			os.Chmod(filepath.Join(dir, start.Format("20060102T150405Z")+"-"+fmt.Sprintf("%04x%012x", i, i)+".jsonl"), 0)
		}
	}
	got, err := List(dir, Query{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		if e.Header == nil {
			t.Fatalf("an old file was read: %s (%s)", e.Path, e.Problem)
		}
	}
	if ids(got) != "00270000 00260000 00250000 00240000 00230000" {
		t.Errorf("got %s", ids(got))
	}
}

func TestLookup(t *testing.T) {
	dir := folder(t, 20)
	run{id: "abcdef01", start: t0.Add(-time.Hour), prompt: "renamed", end: "stop"}.write(t, filepath.Join(dir, "mine.jsonl"))
	// A file whose name says another id than its header.
	run{id: "c0ffee00", start: t0.Add(-2 * time.Hour), prompt: "moved", end: "stop"}.write(t, filepath.Join(dir, "20250101T000000Z-ffffffff.jsonl"))
	writeFile(t, filepath.Join(dir, "notes.txt"), "x")
	for ref, want := range map[string]string{
		"last": "00130000", "": "00130000", "0005": "00050000", "ABCDEF": "abcdef01", "c0ffee": "c0ffee00",
	} {
		e, err := Lookup(dir, ref)
		if err != nil {
			t.Errorf("Lookup(%q): %v", ref, err)
			continue
		}
		if e.ShortID() != want {
			t.Errorf("Lookup(%q) = %s, want %s", ref, e.ShortID(), want)
		}
	}
	if _, err := Lookup(dir, "000"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("an ambiguous prefix: %v", err)
	}
	if _, err := Lookup(dir, "ffffffff"); err == nil {
		t.Error("the id in a file's name found a run whose header says another")
	}
	if _, err := Lookup(t.TempDir(), "last"); err == nil || err.Error() != "no runs yet" {
		t.Errorf("an empty folder: %v", err)
	}
}

func TestParseName(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		id   string // "" for a name agentloop does not give
	}{
		{"20260301T100405Z-0123ABcd.jsonl", "0123abcd"},
		{"20260301T100405Z-x.jsonl", "x"},
		{"20260301T100405Z-.jsonl", ""},
		{"20260301T100405Z-ab-c.jsonl", ""},
		{"20260301T100405Z-abc.json", ""},
		{"20260301T100405Z-abc.jsonl.bak", ""},
		{"20260301 100405Z-abc.jsonl", ""},
		{"2026030141004052-abc.jsonl", ""},
		{"20261301T100405Z-abc.jsonl", ""}, // month 13
		{"20260301T100405Zabc.jsonl", ""},
		{"notes.txt", ""},
		{"20260301T100405Z-é.jsonl", ""},
	}
	for _, tt := range tests {
		got, id, ok := parseName(tt.name)
		if ok != (tt.id != "") || id != tt.id || ok && !got.Equal(at) {
			t.Errorf("parseName(%q) = %v, %q, %v; want id %q", tt.name, got, id, ok, tt.id)
		}
	}
}

func TestReadReplacedSinceListed(t *testing.T) {
	// A file the folder's listing said was regular may be something else
	// by the time it is opened: a named pipe is not waited on, a folder is
	// not read; neither is a run.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "20260301T100000Z-aaaa.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "20260301T100100Z-bbbb.jsonl")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, sub, filepath.Join(dir, "gone.jsonl")} {
		// Opening a named pipe for reading would wait for a writer.
		if e := readFile(p, true, Options{}); e != nil {
			t.Errorf("%s: got an entry %+v, want none", filepath.Base(p), e)
		}
	}
}

// threadsOf lists the threads as "thread: >run >>run", a '>' for each
// level of depth.
func threadsOf(threads []Thread) []string {
	var got []string
	for _, th := range threads {
		var runs []string
		for _, r := range th {
			runs = append(runs, strings.Repeat(">", r.Depth)+r.ShortID())
		}
		got = append(got, th.ID()[:8]+": "+strings.Join(runs, " "))
	}
	return got
}

// A limit or a filter chooses which runs are listed, never which
// conversation a run belongs to or how deep in it it sits: two follow-ups
// of a run left out are one thread under their parent's id, in the order
// the whole conversation has.
func TestListParentsWhateverTheLimit(t *testing.T) {
	dir := t.TempDir()
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	for _, r := range []run{
		{id: "aaaa0000", start: at(0), prompt: "first"},
		{id: "bbbb0000", parentID: "aaaa0000", command: CommandContinue, start: at(1), prompt: "and then?", copied: []string{"first"}},
		{id: "cccc0000", start: at(2), prompt: "another"},
		{id: "dddd0000", parentID: "bbbb0000", command: CommandContinue, start: at(3), prompt: "deeper", copied: []string{"first", "and then?"}},
		{id: "eeee0000", parentID: "aaaa0000", command: CommandContinue, start: at(4), prompt: "a second branch", copied: []string{"first"}},
		{id: "ffff0000", parentID: "9999pruned", command: CommandContinue, start: at(5), prompt: "its parent is gone", copied: []string{"old"}},
		{id: "abab0000", parentID: "ffff0000", command: CommandContinue, start: at(6), prompt: "below a pruned one", copied: []string{"old"}},
	} {
		r.answer, r.end = "ok", "stop"
		r.write(t, filepath.Join(dir, r.start.Format("20060102T150405Z")+"-"+r.id+".jsonl"))
	}
	tests := []struct {
		q    Query
		want []string
	}{
		{Query{Limit: 0}, []string{"ffff0000: >ffff0000 >>abab0000", "aaaa0000: aaaa0000 >bbbb0000 >>dddd0000 >eeee0000", "cccc0000: cccc0000"}},
		{Query{Limit: 2}, []string{"ffff0000: >ffff0000 >>abab0000"}},
		{Query{Limit: 1}, []string{"ffff0000: >>abab0000"}},
		{Query{Limit: 3}, []string{"ffff0000: >ffff0000 >>abab0000", "aaaa0000: >eeee0000"}},
		{Query{Limit: 4}, []string{"ffff0000: >ffff0000 >>abab0000", "aaaa0000: >>dddd0000 >eeee0000"}},
		{Query{Limit: 5}, []string{"ffff0000: >ffff0000 >>abab0000", "aaaa0000: >>dddd0000 >eeee0000", "cccc0000: cccc0000"}},
		{Query{Limit: 6}, []string{"ffff0000: >ffff0000 >>abab0000", "aaaa0000: >bbbb0000 >>dddd0000 >eeee0000", "cccc0000: cccc0000"}},
		{Query{Since: at(3)}, []string{"ffff0000: >ffff0000 >>abab0000", "aaaa0000: >>dddd0000 >eeee0000"}},
		{Query{Search: "branch"}, []string{"aaaa0000: >eeee0000"}},
		{Query{Search: "deeper", Limit: 1}, []string{"aaaa0000: >>dddd0000"}},
	}
	for _, tt := range tests {
		tt.q.Parents = true
		got, err := List(dir, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if g := threadsOf(Threads(got)); !slices.Equal(g, tt.want) {
			t.Errorf("%+v:\ngot  %q\nwant %q", tt.q, g, tt.want)
		}
	}
}

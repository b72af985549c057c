package history

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// A listing of thousands of runs is formatted in parts at once; its lines
// come out whole and in order, as one at a time would write them.
func TestTableLinesInOrder(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var entries []*Entry
	for i := range 3000 {
		e := &Entry{Path: fmt.Sprintf("/t/%05d.jsonl", i), Size: int64(i), ModTime: t0}
		switch i % 7 {
		case 0:
			e.Problem = "not an agentloop transcript: the first line is not JSON"
		default:
			e.Header = &transcript.Header{ID: fmt.Sprintf("%08xabcdef01", i), Time: t0.Add(time.Duration(i) * time.Minute), Provider: "openai", Model: "m"}
			e.Prompt = fmt.Sprintf("question %d\nsecond line \x1b[31m", i)
			e.End = &transcript.End{Reason: "stop", Steps: i % 9, Usage: transcript.Usage{InputTokens: int64(i) * 100}}
		}
		entries = append(entries, e)
	}
	Sort(entries)
	threads := Threads(entries)

	var table bytes.Buffer
	if err := WriteTable(&table, threads, false, 80); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")
	if len(lines) != 1+len(entries) {
		t.Fatalf("%d lines for %d runs", len(lines), len(entries))
	}
	i := 0
	for _, th := range threads {
		for _, r := range th {
			row := row(r)
			if !strings.HasPrefix(lines[1+i], row.id+" ") || !strings.HasSuffix(lines[1+i], row.prompt) {
				t.Fatalf("line %d: %q, want the row of %s", 1+i, lines[1+i], r.Path)
			}
			i++
		}
	}
}

// On a terminal each line of the listing fits its width: a wide character
// (Japanese, an emoji) takes two columns, a combining mark none, and the
// columns stay aligned when a cell holds them.
func TestTableFitsTerminalColumns(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	run := func(id, model, prompt string, at time.Time) *Entry {
		return &Entry{Path: "/t/" + id + ".jsonl", ModTime: at,
			Header: &transcript.Header{ID: id, Time: at, Provider: "openai", Model: model},
			Prompt: prompt, End: &transcript.End{Reason: "stop", Steps: 1}}
	}
	entries := []*Entry{
		run("aaaa111100000000", "gpt-4o-mini", "東京の天気はどうですか、明日も晴れますか", t0.Add(time.Minute)),
		run("bbbb222200000000", "モデル", "e\u0301te\u0301 a\u0300 Paris 😀😀 and more words to cut", t0),
	}
	out := &bytes.Buffer{}
	if err := WriteTable(out, Threads(entries), true, 80); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"ID        STARTED           MODEL               STEPS  TOKENS  END   PROMPT\n" +
		"aaaa1111  " + t0.Add(time.Minute).Local().Format("2006-01-02 15:04") + "  openai/gpt-4o-mini      1       0  stop  東京の天気…\n" +
		"bbbb2222  " + t0.Local().Format("2006-01-02 15:04") + "  openai/モデル           1       0  stop  e\u0301te\u0301 a\u0300 Pari…\n"
	if got := out.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// Two runs whose ids start alike are shown with as much of their ids as
// tells them apart, so that the id a line shows names its run; copies of
// one run keep their one id.
func TestTableShortIDsUnique(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var entries []*Entry
	for i, id := range []string{"abcd1234aaaa0000", "abcd1234aabb0000", "abcd1234cccc0000", "abcd1234cccc0000", "ffff0000aaaa0000", "ééééééééé", "éééééééé\x1b"} {
		entries = append(entries, &Entry{Path: fmt.Sprintf("/t/%d.jsonl", i), ModTime: t0,
			Header: &transcript.Header{ID: id, Time: t0.Add(time.Duration(i) * time.Minute), Provider: "openai", Model: "m"},
			Prompt: "q", End: &transcript.End{Reason: "stop", Steps: 1}})
	}
	out := &bytes.Buffer{}
	if err := WriteTable(out, Threads(entries), false, 80); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
		got = append(got, strings.Fields(l)[0])
	}
	want := []string{"éééééééé\\u001b", "ééééééééé", "ffff0000", "abcd1234c", "abcd1234c", "abcd1234aab", "abcd1234aaa"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ids shown: %q, want %q", got, want)
	}
}

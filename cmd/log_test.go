package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/history"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// A JSON listing of thousands of runs is formatted in parts at once; its
// lines come out whole and in order, as one at a time would write them.
func TestLogLinesInOrder(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var entries []*history.Entry
	for i := range 3000 {
		e := &history.Entry{Path: fmt.Sprintf("/t/%05d.jsonl", i), Size: int64(i), ModTime: t0}
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
	history.Sort(entries)
	threads := history.Threads(entries)

	var js bytes.Buffer
	if err := writeLogJSON(&js, threads); err != nil {
		t.Fatal(err)
	}
	objs := strings.Split(strings.TrimSuffix(js.String(), "\n"), "\n")
	if len(objs) != len(entries) {
		t.Fatalf("%d JSON lines for %d runs", len(objs), len(entries))
	}
	i := 0
	for _, th := range threads {
		for _, r := range th {
			var l logLine
			if err := json.Unmarshal([]byte(objs[i]), &l); err != nil || l.Path != r.Path {
				t.Fatalf("JSON line %d: %s (%v), want the run %s", i, objs[i], err, r.Path)
			}
			i++
		}
	}
}

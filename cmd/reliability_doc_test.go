package cmd

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReliabilityDocCounts: the rows of docs/reliability.md backed by this
// package's table-driven tests count as many cases as the tables hold.
// (TestReliabilityDoc, in the module's root, checks the rest.)
func TestReliabilityDocCounts(t *testing.T) {
	doc, err := os.ReadFile("../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]int{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 5 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(cells[3]))
		if err != nil {
			continue
		}
		sums[strings.TrimSpace(cells[4])] += n
	}
	for proof, want := range map[string]int{
		"`cmd/badinput_test.go` TestBadFlagValues":       len(badFlagCases()),
		"`cmd/badtranscript_test.go` TestBadTranscripts": len(wrongTypes),
	} {
		if sums[proof] != want {
			t.Errorf("docs/reliability.md counts %d cases for %s, which tries %d", sums[proof], proof, want)
		}
	}
}

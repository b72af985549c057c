package e2e

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docRow is one row of a table of docs/reliability.md.
type docRow struct {
	line          int
	kind, what    string
	cases         int
	proofs        map[string][]string // file → tests named in it
	proofSequence string
}

// readReliabilityDoc reads the rows of docs/reliability.md's fault and
// bad-input tables (five columns: kind, what, does, cases, proof), and its
// totals.
func readReliabilityDoc(t *testing.T, path string) ([]docRow, map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []docRow
	totals := map[string]string{}
	total := regexp.MustCompile(`^- (Faults tried|Bad inputs tried|Panics|Transcripts lost): (\d+)`)
	ref := regexp.MustCompile("`([^`]+)`|\\b((?:Test|Fuzz)\\w+)")
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := total.FindStringSubmatch(line); m != nil {
			totals[m[1]] = m[2]
			continue
		}
		if !strings.HasPrefix(line, "| fault |") && !strings.HasPrefix(line, "| bad input |") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 5 {
			t.Fatalf("%s:%d: %d cells, want 5: %s", path, n, len(cells), line)
		}
		r := docRow{line: n, kind: strings.TrimSpace(cells[0]), what: cells[1], proofs: map[string][]string{}, proofSequence: cells[4]}
		if r.cases, err = strconv.Atoi(strings.TrimSpace(cells[3])); err != nil || r.cases < 1 {
			t.Errorf("%s:%d: cases %q", path, n, cells[3])
		}
		file := ""
		for _, m := range ref.FindAllStringSubmatch(cells[4], -1) {
			if m[1] != "" {
				file = m[1]
				r.proofs[file] = nil
			} else if file != "" {
				r.proofs[file] = append(r.proofs[file], m[2])
			}
		}
		if len(r.proofs) == 0 {
			t.Errorf("%s:%d: no proof named", path, n)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, totals
}

// casesOf sums the cases of the rows whose only proof is test.
func casesOf(rows []docRow, test string) int {
	n := 0
	for _, r := range rows {
		for _, tests := range r.proofs {
			if len(r.proofs) == 1 && len(tests) == 1 && tests[0] == test {
				n += r.cases
			}
		}
	}
	return n
}

// TestReliabilityDoc keeps docs/reliability.md honest: every test it names
// exists in the file it names, every script it names exists, the totals
// are the sums of its tables, and the rows backed by this package's
// table-driven tests count their cases.
func TestReliabilityDoc(t *testing.T) {
	rows, totals := readReliabilityDoc(t, "docs/reliability.md")
	sums := map[string]int{}
	for _, r := range rows {
		sums[r.kind] += r.cases
		for file, tests := range r.proofs {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("docs/reliability.md:%d: %v", r.line, err)
				continue
			}
			for _, name := range tests {
				if !regexp.MustCompile(`(?m)^func ` + name + `\(`).Match(src) {
					t.Errorf("docs/reliability.md:%d: %s has no func %s", r.line, file, name)
				}
			}
		}
	}
	want := map[string]string{
		"Faults tried":     strconv.Itoa(sums["fault"]),
		"Bad inputs tried": strconv.Itoa(sums["bad input"]),
		"Panics":           "0",
		"Transcripts lost": "0",
	}
	for k, v := range want {
		if totals[k] != v {
			t.Errorf("docs/reliability.md: %s: %s, the tables say %s", k, totals[k], v)
		}
	}
	for test, n := range map[string]int{
		"TestProviderFaults":            3 * len(providerFaults),
		"TestKill9AtRandomMoments":      20,
		"TestBatchKill9AtRandomMoments": batchKills,
		"TestEmptyTruncatedAnswer":      3,
	} {
		if got := casesOf(rows, test); got != n {
			t.Errorf("docs/reliability.md counts %d cases for %s, which tries %d", got, test, n)
		}
	}
}

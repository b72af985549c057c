package answerschema

import (
	"os"
	"strings"
	"testing"
)

// docTable returns the rows of the table of docs/structured-output.md
// whose header is header, each a list of cells.
func docTable(t *testing.T, header string) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/structured-output.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if l != header {
			continue
		}
		var rows [][]string
		for _, r := range lines[i+2:] {
			if !strings.HasPrefix(r, "|") {
				break
			}
			rows = append(rows, strings.Split(strings.Trim(r, "|"), " | "))
		}
		return rows
	}
	t.Fatalf("no table %q", header)
	return nil
}

// codeSpans are the code spans of a cell, as Markdown reads them: a run
// of backticks, up to the next run of as many.
func codeSpans(cell string) []string {
	var out []string
	for i := 0; i < len(cell); {
		if cell[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(cell) && cell[i+n] == '`' {
			n++
		}
		open := i + n
		end := -1
		for j := open; j < len(cell); {
			if cell[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(cell) && cell[j+m] == '`' {
				m++
			}
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 {
			break
		}
		s := cell[open:end]
		if len(s) > 1 && s[0] == ' ' && s[len(s)-1] == ' ' {
			s = s[1 : len(s)-1]
		}
		out = append(out, s)
		i = end + n
	}
	return out
}

// Each answer of the page's table gets the problems it shows.
func TestDocAnswers(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city","temp"],"additionalProperties":false}`)
	rows := docTable(t, "| answer | problems |")
	for _, row := range rows {
		answer := codeSpans(row[0])[0]
		want := codeSpans(row[1])
		got := problemTexts(s.Check(answer, false))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", answer, got, want)
		}
	}
	if len(rows) != 11 {
		t.Errorf("%d rows", len(rows))
	}
}

// Each concise text of the page's table gets the error it shows ("…"
// ends what is shown of it).
func TestDocConcise(t *testing.T) {
	for _, row := range docTable(t, "| text | llm | agentloop |") {
		text, want := codeSpans(row[0])[0], codeSpans(row[2])[0]
		_, err := FromConcise(text)
		if err == nil {
			t.Errorf("%s: no error", text)
			continue
		}
		if prefix, _, cut := strings.Cut(want, "…"); cut {
			if !strings.HasPrefix(err.Error(), strings.TrimSpace(prefix)) {
				t.Errorf("%s:\n got %s\nwant %s…", text, err, prefix)
			}
			continue
		}
		if err.Error() != want {
			t.Errorf("%s:\n got %s\nwant %s", text, err, want)
		}
	}
}

// The page's example of the concise form, and of what the model is told.
func TestDocExamples(t *testing.T) {
	b, err := os.ReadFile("../../docs/structured-output.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	c, err := FromConcise("verdict, score int, reasons: why it is so")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc, "is\n\n```json\n"+string(c.JSON())+"\n```") {
		t.Errorf("the page does not show %s", c.JSON())
	}
	a := mustParse(t, citySchema).Check(`{"temp":"21"}`, false)
	if !strings.Contains(doc, "```\n"+a.Feedback()+"\n```") {
		t.Errorf("the page does not show\n%s", a.Feedback())
	}
}

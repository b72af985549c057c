package mcp

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestStdoutFilter(t *testing.T) {
	long := strings.Repeat("x", 200)
	const m = `{"jsonrpc":"2.0","id":1}` + "\n"
	tests := []struct {
		name, in, out string
		notes         []string
	}{
		{"messages pass", m + "[{\"b\":2}]\n" + m, m + "[{\"b\":2}]\n" + m, nil},
		{"a banner is dropped", "Server running on stdio\n" + m, m, []string{"Server running on stdio"}},
		{"log lines between messages", m + "INFO: called\r\n" + m, m + m, []string{"INFO: called"}},
		{"a JSON log line is dropped", `{"level":30,"msg":"up"}` + "\n" + m, m, []string{`{"level":30,"msg":"up"}`}},
		{"a line that begins as JSON and is not is dropped", "{oops\n" + m, m, []string{"{oops"}},
		{"blank lines and indented messages pass", "\n  " + m, "\n  " + m, nil},
		{"an indented non-message is dropped", "  hello\n" + m, m, []string{"  hello"}},
		{"a message longer than the buffer passes whole", `{"t":"` + long + `"}` + "\n", `{"t":"` + long + `"}` + "\n", nil},
		{"junk longer than the buffer is dropped, its start noted", long + "\n" + m, m, []string{long}},
		{"the end of the stream mid-junk", m + "bye", m, []string{"bye"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var notes []string
			f := &stdoutFilter{
				r:    bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(tt.in)), 64),
				max:  1 << 20,
				note: func(line []byte) { notes = append(notes, string(line)) },
			}
			got, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.out {
				t.Errorf("passed on %q, want %q", got, tt.out)
			}
			if strings.Join(notes, "|") != strings.Join(tt.notes, "|") {
				t.Errorf("noted %q, want %q", notes, tt.notes)
			}
		})
	}
}

func TestStdoutFilterTooLarge(t *testing.T) {
	f := &stdoutFilter{r: bufio.NewReaderSize(strings.NewReader(`{"jsonrpc":"2.0"}`+"\n{\""+strings.Repeat("x", 100)+"\"}\n"), 32), max: 64}
	got, err := io.ReadAll(f)
	if !errors.Is(err, errTooLarge) {
		t.Fatalf("error %v, want one about a message too large", err)
	}
	if !strings.HasPrefix(string(got), `{"jsonrpc":"2.0"}`+"\n{") || len(got) > 64+18 || !f.wroteTooMuch() {
		t.Errorf("passed on %q, wroteTooMuch %v", got, f.wroteTooMuch())
	}
}

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
	long := strings.Repeat("x", 100)
	tests := []struct {
		name, in, out string
		notes         []string
	}{
		{"messages pass", "{\"a\":1}\n[{\"b\":2}]\n", "{\"a\":1}\n[{\"b\":2}]\n", nil},
		{"a banner is dropped", "Server running on stdio\n{\"a\":1}\n", "{\"a\":1}\n", []string{"Server running on stdio"}},
		{"log lines between messages", "{\"a\":1}\nINFO: called\r\n{\"b\":2}\n", "{\"a\":1}\n{\"b\":2}\n", []string{"INFO: called"}},
		{"blank lines and indented messages pass", "\n  {\"a\":1}\n", "\n  {\"a\":1}\n", nil},
		{"an indented non-message is dropped", "  hello\n{}\n", "{}\n", []string{"  hello"}},
		{"a message longer than the buffer passes whole", "{\"t\":\"" + long + "\"}\n", "{\"t\":\"" + long + "\"}\n", nil},
		{"junk longer than the buffer is dropped, its start noted", long + "\n{}\n", "{}\n", []string{long}},
		{"the end of the stream mid-junk", "{}\nbye", "{}\n", []string{"bye"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var notes []string
			f := &stdoutFilter{
				r:    bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(tt.in)), 16),
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
	f := &stdoutFilter{r: bufio.NewReaderSize(strings.NewReader("{}\n{\""+strings.Repeat("x", 100)+"\"}\n"), 16), max: 64}
	got, err := io.ReadAll(f)
	if !errors.Is(err, errTooLarge) {
		t.Fatalf("error %v, want one about a message too large", err)
	}
	if !strings.HasPrefix(string(got), "{}\n{") || len(got) > 64+3 || !f.wroteTooMuch() {
		t.Errorf("passed on %q, wroteTooMuch %v", got, f.wroteTooMuch())
	}
}

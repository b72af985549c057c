package transcript

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// ReadEach hands over, part by part, what ReadConversations reads whole.
func TestReadEachAgreesWithReadConversations(t *testing.T) {
	inputs := map[string]string{
		"agentloop": `{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"anthropic","model":"m"}
{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}
{"type":"end","time":"2026-01-01T00:00:00Z","reason":"stop","steps":0,"usage":{"input_tokens":0,"output_tokens":0}}
`,
		"messages": `{"role":"user","content":"q"}

{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"c","content":"r"}
{"role":"assistant","content":"done"}
`,
		"torn":          "{\"role\":\"user\",\"content\":\"q\"}\n{\"role\":\"assis",
		"request":       "\n{\n  \"model\": \"m\",\n  \"system\": \"be brief\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"q\"}\n  ]\n}\n",
		"request-line":  `{"model":"m","messages":[{"role":"user","content":"q"}]}` + "\n\n",
		"array":         `[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]`,
		"conversations": "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}\n{\"messages\":[{\"role\":\"user\",\"content\":\"r\"}]}\n",
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			want, err := ReadConversations(strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			var got []*Conversation
			c := &Conversation{}
			torn, err := ReadEach(strings.NewReader(in), func(p Part) error {
				switch {
				case p.Conversation != nil:
					got = append(got, p.Conversation)
				case p.Header != nil:
					c.Header = p.Header
				case p.Message != nil:
					c.Messages = append(c.Messages, *p.Message)
				case p.End != nil:
					c.End = p.End
				}
				c.Format = p.Format
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				c.Torn = torn
				c.finish()
				got = []*Conversation{c}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ReadEach gave\n%+v\nReadConversations\n%+v", got[0], want[0])
			}
		})
	}
}

// A bad line ends the reading with its line number, after the parts
// before it; an error of the caller's ends it too.
func TestReadEachErrors(t *testing.T) {
	in := "{\"role\":\"user\",\"content\":\"q\"}\n{\"role\":\"assistant\",\"content\":\"a\"}\nnot json\n{\"role\":\"user\",\"content\":\"r\"}\n"
	var n int
	_, err := ReadEach(strings.NewReader(in), func(Part) error { n++; return nil })
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 || n != 2 {
		t.Errorf("err %v after %d parts, want line 3 after 2", err, n)
	}
	stop := errors.New("stop")
	if _, err := ReadEach(strings.NewReader(in), func(Part) error { return stop }); err != stop {
		t.Errorf("err %v, want the caller's", err)
	}
	if _, err := ReadEach(strings.NewReader("\n \n"), func(Part) error { return nil }); err == nil {
		t.Error("an empty file should be refused")
	}
}

// A file of one whole line that is no conversation is refused for what it
// is, as ReadConversations refuses it: not as a last line the writer was
// stopped in (the newline it ends with was dropped on the way). A line
// without its newline is still told as cut short.
func TestReadEachOneLineFile(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\"a\":1}\n", "line 1: neither a transcript record"},
		{"{\"a\":1}\r\n", "line 1: neither a transcript record"},
		{"\n\n{\"a\":1}\n", "line 3: neither a transcript record"},
		{"{\"a\":1}", "line 1: incomplete last record (the writer stopped mid-line)"},
	} {
		_, err := ReadEach(strings.NewReader(tc.in), func(Part) error { return nil })
		_, want := ReadConversations(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: ReadEach: %v, want %q", tc.in, err, tc.want)
		}
		if want == nil || !strings.Contains(want.Error(), tc.want) {
			t.Errorf("%q: ReadConversations: %v, want %q", tc.in, want, tc.want)
		}
	}
}

// ReadEach holds one line at a time: the reader is not read ahead of the
// part handed over by more than the line reader's buffer.
func TestReadEachStreams(t *testing.T) {
	line := `{"role":"user","content":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	r := &countingReader{r: strings.NewReader(strings.Repeat(line, 64))}
	parts := 0
	_, err := ReadEach(r, func(p Part) error {
		parts++
		if ahead := r.n - int64(parts*len(line)); ahead > 2<<20 {
			t.Fatalf("part %d: %d bytes read ahead", parts, ahead)
		}
		return nil
	})
	if err != nil || parts != 64 {
		t.Fatalf("%d parts, err %v", parts, err)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

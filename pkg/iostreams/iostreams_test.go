package iostreams

import (
	"errors"
	"testing"
)

func TestColorWanted(t *testing.T) {
	tests := []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"NO_COLOR": "anything"}, false},
		{true, map[string]string{"NO_COLOR": ""}, true}, // set but empty: no-color.org says colour
		{true, map[string]string{"TERM": "dumb"}, false},
		{true, map[string]string{"TERM": "xterm-256color"}, true},
	}
	for _, tt := range tests {
		got := colorWanted(tt.tty, func(k string) string { return tt.env[k] })
		if got != tt.want {
			t.Errorf("tty %v, env %v: %v, want %v", tt.tty, tt.env, got, tt.want)
		}
	}
}

// A question is asked only when a person is there: with every stream
// redirected nobody is; with stdin a terminal (and no controlling
// terminal to open) the answer is read from stdin and the question goes
// to stderr.
func TestTerminal(t *testing.T) {
	ios, _, _, _ := Test()
	if _, _, _, ok := ios.Terminal(); ok {
		t.Error("a terminal with every stream redirected")
	}
	ios.SetTTY(true, false, false)
	in, out, done, ok := ios.Terminal()
	if !ok || in != ios.In || out != ios.ErrOut {
		t.Errorf("stdin a terminal: ok %v, in stdin %v, out stderr %v", ok, in == ios.In, out == ios.ErrOut)
	}
	done()
	ios.SetTTY(false, false, true)
	if _, _, _, ok := ios.Terminal(); ok {
		t.Error("stderr a terminal, no controlling terminal, stdin piped: nowhere to read an answer")
	}
}

func TestCanRedraw(t *testing.T) {
	ios, _, _, _ := Test()
	ios.SetTTY(false, false, true)
	if !ios.CanRedraw() {
		t.Error("stderr a terminal: cannot redraw")
	}
	ios.SetEnv(func(k string) string { return map[string]string{"TERM": "dumb"}[k] })
	if ios.CanRedraw() {
		t.Error("TERM=dumb: redraws")
	}
}

type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

// A watched writer keeps the first error a write returned.
func TestWatchedWriter(t *testing.T) {
	inner := &failAfter{n: 1}
	w := Watch(inner)
	if _, err := w.Write([]byte("a")); err != nil || w.Err() != nil {
		t.Fatalf("first write: %v, %v", err, w.Err())
	}
	w.Write([]byte("b"))
	w.Write([]byte("c"))
	if w.Err() == nil || w.Err().Error() != "disk full" || w.Unwrap() != inner {
		t.Errorf("Err %v", w.Err())
	}
}

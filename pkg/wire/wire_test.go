package wire

import (
	"os"
	"strings"
	"testing"
)

// TestResultKindsDocumented keeps docs/transcript.md listing every kind a
// results entry's error can hold.
func TestResultKindsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/transcript.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ResultKinds {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/transcript.md does not name the result kind `%s`", k)
		}
	}
}

func TestNotRun(t *testing.T) {
	for _, k := range append([]Kind{KindOK}, ResultKinds...) {
		want := k == KindDenied || k == KindSkipped || k == KindDeclined
		if got := NotRun(k); got != want {
			t.Errorf("NotRun(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestShapesKnown(t *testing.T) {
	for _, s := range Shapes {
		if !s.Known() {
			t.Errorf("%s is not known", s)
		}
	}
	for _, s := range []Shape{"", "OpenAI", "chat", "messages"} {
		if s.Known() {
			t.Errorf("%q is known", s)
		}
	}
}

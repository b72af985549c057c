package har

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: an archive is told by its log object.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"pretty-printed", "{\n  \"log\": {\n    \"version\": \"1.2\",\n", check.Certain},
		{"on one line", `{"log":{"entries":[]}}` + "\n", check.Certain},
		{"a log that is not an object", `{"log":"x"}` + "\n", check.No},
		{"a request body", "{\n  \"messages\": []\n}\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRealArchive: every POST to a chat endpoint is checked, named after its
// entry, with the status recorded; the body the API refused is confirmed.
func TestRealArchive(t *testing.T) {
	fs, st := checktest.Validate(t, check.Registry{Format}, "t.har", checktest.ReadLog(t, "recorded-bodies.har"), check.Options{})
	if st.Format != Name || st.Conversations != 5 || st.ToolCalls != 5 || len(fs) != 1 ||
		fs[0].Code != "unanswered-call" || !fs[0].Confirmed() || !strings.HasPrefix(fs[0].Path, "entries[5] ") {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}

// TestNoChatEntries: an archive of other traffic says nothing was checked.
func TestNoChatEntries(t *testing.T) {
	har := `{"log":{"entries":[{"request":{"method":"GET","url":"https://api.openai.com/v1/models"},"response":{"status":200}}]}}`
	fs, _ := checktest.Validate(t, check.Registry{Format}, "t.har", []byte(har), check.Options{})
	if len(fs) != 1 || fs[0].Code != "no-conversation" || !strings.Contains(fs[0].Message, "among the 1 entry of this HAR file") {
		t.Errorf("%s", checktest.Dump(fs))
	}
}

package geminicli

import (
	"os"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/format/claudecode"
	"github.com/agentloop/agentloop/pkg/transcript/format/gemini"
	"github.com/agentloop/agentloop/pkg/transcript/format/messages"
	"github.com/agentloop/agentloop/pkg/transcript/format/request"
	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// realSession is a session Gemini CLI wrote itself (JSON lines, each
// message written again once its call is done), kept whole; see
// testdata/README.md for where it comes from.
const realSession = "testdata/toolpath_gemini_convo.jsonl"

// TestRealSession: a real session is told from the formats near it and
// passes with nothing to report, all its calls answered; the same session
// with one tool result dropped is caught at the turn it leaves short,
// naming the call.
func TestRealSession(t *testing.T) {
	data, err := os.ReadFile(realSession)
	if err != nil {
		t.Fatal(err)
	}
	reg := check.Registry{messages.Format, request.Format, claudecode.Format, gemini.Format, Format}
	if f, _ := reg.Sniff(checktest.Head(string(data))); f != Format {
		t.Fatalf("not told a Gemini CLI session: %v", f)
	}
	fs, st := checktest.Validate(t, check.Registry{Format}, realSession, data, check.Options{})
	if len(fs) != 0 || st.Format != Name || st.Conversations != 1 || st.Messages != 22 || st.ToolCalls != 10 || st.Errors != 0 {
		t.Fatalf("%+v\n%s", st, checktest.Dump(fs))
	}
	s := string(data)
	start := strings.Index(s, `"result":[{"functionResponse":{"id":"read_file_1778178503897_0"`)
	end := strings.Index(s, `"status":"success","timestamp":"2026-05-07T18:28:23.944Z"`)
	if start < 0 || end < start {
		t.Fatal("the read_file call's result is not where it was")
	}
	dropped := s[:start] + s[end:]
	fs, st = checktest.Validate(t, check.Registry{Format}, realSession, []byte(dropped), check.Options{})
	// The call's model turn runs on into the next gemini message's (the API
	// takes consecutive model contents as one turn), whose one response is
	// then short of the two calls.
	if st.Errors != 1 || len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].Line != 15 ||
		len(fs[0].IDs) != 1 || fs[0].IDs[0] != "read_file_1778178503897_0" ||
		!strings.Contains(fs[0].Message, "it answers 1 of the 2 calls") {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}

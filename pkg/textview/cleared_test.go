package textview

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/htmlview"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// What --show says of cleared results reaches a terminal escaped: a tool
// name or a call id is the transcript's, which anyone may have written.
func TestClearedLineEscapes(t *testing.T) {
	recs := []transcript.Message{{Step: 6, Cleared: []transcript.Cleared{{CallID: "c1\x1b[2J", Name: "page\u202e", Seq: 3, Bytes: 2432}}}}
	got := clearedLine(recs)
	if want := `✂ cleared from this request on: page\u202e c1\u001b[2J (2.4 KB)`; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if note := htmlview.ClearingsOf(recs).Note(3, "c1\x1b[2J"); note != "cleared from step 6 on" {
		t.Errorf("note %q", note)
	}
}

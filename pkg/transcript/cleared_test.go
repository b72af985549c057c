package transcript

import (
	"strings"
	"testing"
)

// TestClearedNameOfReusedCallID: a server that uses a call id again (a
// reused-call-id warning, not an error) names another tool's call with it;
// a cleared entry is checked against the call its result answered, not
// against the last call of that id.
func TestClearedNameOfReusedCallID(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   int // the seq of the result cleared: 3 answered get_weather, 5 read_file
		want bool
	}{
		{"the first call's result, named right", 3, false},
		{"the second call's result, named for the first", 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := validateBytes(t, "reused.jsonl", []byte(lines(ctxHeader,
				rec(1, oUser), rec(2, oCall1), rec(3, oTool1),
				rec(4, oCall("call_1", "read_file", `"{}"`)), rec(5, oTool("call_1")),
				cleared(6, oDone, "call_1", tc.at, "[cleared: 5 B]"), end)), Options{})
			got := false
			for _, f := range fs {
				if f.Code == "cleared-result" {
					got = true
					if !strings.Contains(f.Message, "the call was to read_file") {
						t.Errorf("message %q", f.Message)
					}
				}
			}
			if got != tc.want {
				t.Fatalf("cleared-result %v, want %v: %v", got, tc.want, fs)
			}
		})
	}
}

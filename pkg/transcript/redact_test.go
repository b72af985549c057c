package transcript

import "testing"

// Every credential keyPatterns matches holds one of keyMarks: skipping the
// pattern for text without any changes nothing.
func FuzzKeyMarks(f *testing.F) {
	for _, s := range []string{
		"sk-ant-api03-0123456789abcdefghij", "sk-proj-abcdefghijklmnop1234", "AKIAABCDEFGHIJKLMNOP",
		"ghp_0123456789abcdefghijklmnopqrstuvwxyz", "github_pat_0123456789abcdefghijkl", "xoxb-0123456789",
		"AIza0123456789012345678901234567890123", "Authorization: Bearer abcdefghijklmnop", "bearer\t0123456789abcdefgh",
		"no credential here", `{"content":"\nsk-0123456789abcdefGHIJ"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if keyPatterns().MatchString(s) && !mayHoldKey([]byte(s)) {
			t.Fatalf("the pattern matches %q, which holds none of the marks", s)
		}
	})
}

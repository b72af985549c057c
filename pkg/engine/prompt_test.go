package engine

import "testing"

// The fence around stdin's text is longer than any backtick run in it.
func TestWithInput(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"plain", "q\n\n```\nplain\n```"},
		{"a ```` b ` c", "q\n\n`````\na ```` b ` c\n`````"},
	} {
		if got := WithInput("q", tt.text); got != tt.want {
			t.Errorf("WithInput(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// Stdin's text is the prompt, or follows the arguments' in a fence; what
// is not text is refused, saying where.
func TestAddStdin(t *testing.T) {
	for _, tc := range []struct{ prompt, data, want, err string }{
		{"", "  the text \n", "the text", ""},
		{"review", "a\n", "review\n\n```\na\n```", ""},
		{"review", " \n\t", "review", ""},
		{"review", "a\x00b", "", "stdin is not text: NUL byte at offset 1"},
		{"review", "a\xffb", "", "stdin is not text: it is not valid UTF-8"},
	} {
		got, err := AddStdin(tc.prompt, []byte(tc.data))
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%q + %q: %q, %v", tc.prompt, tc.data, got, err)
		}
	}
}

package termtext

import "testing"

func TestWrap(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"short line\nanother", "short line\nanother"},
		{"one two three four\nfive", "one two\nthree four\nfive"},
		{"one two three four\n\n  indented line kept\nx", "one two\nthree four\n\n  indented line kept\nx"},
		{"averyveryverylongword x", "averyveryverylongword\nx"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := Wrap(10, tc.in); got != tc.want {
				t.Errorf("Wrap(10, %q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

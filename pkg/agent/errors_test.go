package agent

import "testing"

func TestProviderErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  ProviderError
		want string
	}{
		{ProviderError{Provider: "openai", Status: 500, Message: "boom"}, "openai: 500 Internal Server Error: boom"},
		{ProviderError{Provider: "anthropic", Status: 529, Message: "Overloaded"}, "anthropic: 529: Overloaded"},
		{ProviderError{Provider: "anthropic", Status: 529}, "anthropic: 529"},
		{ProviderError{Provider: "openai", Message: "cut", Hint: "retry"}, "openai: cut (retry)"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

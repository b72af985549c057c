package agent

import (
	"fmt"
	"net/http"
	"strings"
)

// ProviderError is a model request that failed after the retries: an API
// error status, a connection failure, or a response that cannot be used.
type ProviderError struct {
	Provider string
	// Status is the HTTP status, 0 when there was none.
	Status int
	// Message is the server's own message, or what went wrong.
	Message string
	// Hint says what the user can do about it.
	Hint string
	Err  error
}

func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	if e.Status != 0 {
		// 529 (Anthropic's "overloaded") has no standard text.
		fmt.Fprintf(&b, "%d", e.Status)
		if text := http.StatusText(e.Status); text != "" {
			b.WriteString(" " + text)
		}
		if e.Message != "" {
			b.WriteString(": ")
		}
	}
	b.WriteString(oneLine(e.Message))
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

func (e *ProviderError) Unwrap() error { return e.Err }

// oneLine folds a server's message onto one line and caps it, so an HTML
// error page from a proxy does not flood the terminal.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 500
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

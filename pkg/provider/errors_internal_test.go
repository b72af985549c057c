package provider

import (
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

const (
	openAIBaseURL    = "https://api.openai.com/v1"
	anthropicBaseURL = "https://api.anthropic.com"
)

// A connection that fails to the provider's own endpoint points at the
// network, not at a base URL setting nobody made; to a server the user
// chose, at the setting that chose it.
func TestTransportErrorHint(t *testing.T) {
	dns := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example", IsNotFound: true}}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tc := range []struct {
		name, host, baseURL, from string
		err                       error
		want                      string
	}{
		{"openai default, no DNS", "api.openai.com", openAIBaseURL, "OPENAI_BASE_URL", dns, "check the network"},
		{"openai default with a slash, refused", "api.openai.com", openAIBaseURL + "/", "OPENAI_BASE_URL", refused, "check the network"},
		{"responses default", "api.openai.com", openAIBaseURL, "OPENAI_BASE_URL", dns, "check the network"},
		{"anthropic default", "api.anthropic.com", anthropicBaseURL, "ANTHROPIC_BASE_URL", refused, "check the network"},
		{"anthropic default, a DNS error alone", "api.anthropic.com", anthropicBaseURL, "ANTHROPIC_BASE_URL", dns.Err, "check the network"},
		{"local server, a DNS error alone", "api.openai.com", "http://llm.internal/v1", "OPENAI_BASE_URL", dns.Err, "check OPENAI_BASE_URL and the network"},
		{"local server, its name not found on dialling", "api.openai.com", "http://llm.internal/v1", "OPENAI_BASE_URL", dns, "check OPENAI_BASE_URL and the network"},
		{"local server from the flag", "api.openai.com", "http://127.0.0.1:11434/v1", "", refused, "is the server running? check --base-url"},
		{"local server from the variable", "api.openai.com", "http://127.0.0.1:11434/v1", "OPENAI_BASE_URL", refused, "is the server running? check OPENAI_BASE_URL"},
		{"anthropic's URL for the openai provider", "api.openai.com", anthropicBaseURL, "--base-url", refused, "is the server running? check --base-url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := &url.Error{Op: "Post", URL: tc.baseURL + "/x", Err: tc.err}
			pe := Endpoint{Provider: "p", Host: tc.host, BaseURL: tc.baseURL, URLFrom: tc.from}.TransportError(err)
			if pe.Hint != tc.want {
				t.Errorf("hint %q, want %q (message %q)", pe.Hint, tc.want, pe.Message)
			}
		})
	}
}

// A server that refuses the structured output field gets a hint; other
// errors, and requests without the field, are left as they are.
func TestAnswerFormatHint(t *testing.T) {
	f := &agent.AnswerFormat{Name: "answer", Schema: []byte(`{}`)}
	for _, tc := range []struct {
		status int
		msg    string
		format *agent.AnswerFormat
		hint   bool
	}{
		{500, `response_format type must be one of "text" or "json_object", but got: json_schema`, f, true},
		{400, "The provided JSON schema contains features not supported by xgrammar.", f, true},
		{500, "invalid JSON schema in format", f, true},
		{500, "invalid JSON schema in format", nil, false},
		{500, "internal error", f, false},
		{429, "rate limit on schema requests", f, false},
		{401, "bad key for format", f, false},
	} {
		err := AnswerFormatHint(&agent.ProviderError{Provider: "openai", Status: tc.status, Message: tc.msg}, tc.format, "response_format")
		var pe *agent.ProviderError
		if !errors.As(err, &pe) {
			t.Fatalf("%v", err)
		}
		if got := strings.Contains(pe.Hint, "--schema-mode prompt"); got != tc.hint {
			t.Errorf("%d %q: hint %q", tc.status, tc.msg, pe.Hint)
		}
		if got := errors.Is(err, ErrAnswerFormatRefused); got != tc.hint {
			t.Errorf("%d %q: refused %v", tc.status, tc.msg, got)
		}
	}
}

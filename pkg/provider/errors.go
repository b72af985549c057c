// Package provider holds what the providers of an LLM API share and that
// needs no SDK: the request body composed from the stored wire messages,
// the checks of an API key, and errors said in words a user can act on.
// Each API's provider is a package below it (openai, anthropic), the only
// packages that import an LLM SDK.
package provider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Endpoint is what the errors of a provider's requests need to know about
// where they went and what set it.
type Endpoint struct {
	// Provider is the provider's name, which its errors begin with.
	Provider string
	// Host is the API's own host ("api.openai.com"): a request there that
	// fails to connect has no setting to check.
	Host   string
	KeyVar string // the variable the key comes from
	HasKey bool
	Model  string
	// ModelFrom is the setting Model came from; "" is --model.
	ModelFrom string
	BaseURL   string
	// URLFrom is the setting BaseURL came from; "" is --base-url.
	URLFrom string
	Retries int
	// UnderV1 is set for an API whose compatible servers answer under
	// /v1 (OpenAI's): a 404 from a bare address is told to add it.
	UnderV1 bool
}

// OnHost reports whether baseURL is an address on host, however it is
// spelt (https://API.openai.com, without /v1, with a trailing dot): a
// request there without a key is refused, so none is made.
func OnHost(baseURL, host string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	return strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), host)
}

// urlSetting is the setting to check for a base URL that came from from.
func urlSetting(from string) string {
	if from == "" {
		return "--base-url"
	}
	return from
}

// modelSetting is the setting to check for a model that came from from.
func modelSetting(from string) string {
	if from == "" {
		return "--model"
	}
	return from
}

// pathHint says how to set right a base URL whose path a 404 shows to be
// wrong: /v1 twice, or the bare address of an OpenAI-compatible server
// (Ollama's http://localhost:11434), which answers under /v1.
func pathHint(e Endpoint, requested string) string {
	if strings.Contains(requested+"/", "/v1/v1/") {
		return "; the address has /v1 twice: take one out"
	}
	if !e.UnderV1 {
		return ""
	}
	u, err := url.Parse(e.BaseURL)
	if err != nil || strings.Trim(u.Path, "/") != "" {
		return ""
	}
	u.Path, u.RawPath = "/v1", ""
	return fmt.Sprintf("; servers that follow the OpenAI API answer under /v1: try %s %s", urlSetting(e.URLFrom), transcript.RedactURL(u.String()))
}

// APIError makes a ProviderError of an error status the SDK reported, with
// a hint for the statuses a user can do something about.
func (e Endpoint) APIError(status int, message string, res *http.Response, err error) *agent.ProviderError {
	pe := &agent.ProviderError{Provider: e.Provider, Status: status, Message: message, Err: err}
	if pe.Message == "" {
		pe.Message = httpretry.BodyText(res)
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if !e.HasKey {
			pe.Hint = "the server wants an API key: set " + e.KeyVar
		} else {
			pe.Hint = "check " + e.KeyVar + ": the server refused the key"
		}
	case http.StatusNotFound:
		// Say what was asked for: a base URL with a path too many or too
		// few (…/v1/v1/…) shows at once.
		pe.Hint = fmt.Sprintf("check %s %q and %s %s", modelSetting(e.ModelFrom), e.Model, urlSetting(e.URLFrom), transcript.RedactURL(e.BaseURL))
		if res != nil && res.Request != nil && res.Request.URL != nil {
			pe.Hint = fmt.Sprintf("%s %s: %s", res.Request.Method, transcript.RedactURL(res.Request.URL.String()), pe.Hint)
			pe.Hint += pathHint(e, res.Request.URL.Path)
		}
	case http.StatusTooManyRequests, 529: // 529: Anthropic's "overloaded"
		pe.Hint = fmt.Sprintf("rate limited or overloaded after %d retries; raise --max-retries or try later", e.Retries)
	}
	if h := httpretry.TooLongHint(res); h != "" {
		pe.Hint = h
	}
	return pe
}

// BodyError is APIError for an error answer read back whole, as a batch's
// results hold them: the message is the body's error.message, or the
// body itself when it has none.
func (e Endpoint) BodyError(status int, body []byte) *agent.ProviderError {
	var b struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := ""
	if json.Unmarshal(body, &b) == nil {
		msg = b.Error.Message
	}
	if msg == "" {
		msg = string(bytes.TrimSpace(body))
	}
	return e.APIError(status, msg, nil, nil)
}

// TransportError is a request that got no usable response: the server
// could not be reached, or the connection broke.
func (e Endpoint) TransportError(err error) *agent.ProviderError {
	baseURL, urlFrom := e.BaseURL, e.URLFrom
	pe := &agent.ProviderError{Provider: e.Provider, Err: err}
	// The SDK's *url.Error repeats the method and the whole URL.
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) {
		inner = ue.Err
	}
	if why, lookup := httpretry.ConnectFailure(inner); why != nil {
		pe.Message = fmt.Sprintf("cannot connect to %s: %v", transcript.RedactURL(baseURL), why)
		pe.Hint = "is the server running? check " + urlSetting(urlFrom)
		if lookup {
			pe.Hint = "check " + urlSetting(urlFrom) + " and the network"
		}
		if OnHost(baseURL, e.Host) {
			pe.Hint = "check the network" // the provider's own endpoint: no setting to check
		}
		return pe
	}
	var stalled *httpretry.StalledError
	if errors.As(inner, &stalled) {
		pe.Message = stalled.Error()
		pe.Hint = "a server that sends nothing for that long has most likely stopped; if the model takes longer before it answers, raise --idle-timeout"
		return pe
	}
	if errors.Is(inner, http.ErrSchemeMismatch) {
		pe.Message = fmt.Sprintf("the server at %s speaks plain HTTP, not HTTPS", transcript.RedactURL(baseURL))
		pe.Hint = "use http:// in " + urlSetting(urlFrom)
		return pe
	}
	if errors.Is(inner, bufio.ErrTooLong) {
		pe.Message = fmt.Sprintf("the server at %s sent a line of over %d MiB in its event stream", transcript.RedactURL(baseURL), httpretry.MaxEventLine>>20)
		pe.Hint = "no API streams an event that long: a server that does not stream as the API does; try --no-stream"
		return pe
	}
	if errors.Is(inner, httpretry.ErrResponseTooLarge) {
		pe.Message = inner.Error()
		pe.Hint = "a model that repeats itself without end, or a server that never ends its answer; --max-tokens bounds an answer"
		return pe
	}
	var syn *json.SyntaxError
	switch {
	case ue != nil:
	case errors.Is(inner, io.ErrUnexpectedEOF):
		pe.Message = "the response body is cut short: it ends inside its JSON"
		return pe
	case errors.Is(inner, io.EOF):
		pe.Message = "the response body is empty"
		return pe
	case errors.As(inner, &syn):
		pe.Message = fmt.Sprintf("the response body is not valid JSON: %v at offset %d", syn, syn.Offset)
		return pe
	}
	pe.Message = inner.Error()
	return pe
}

// ErrAnswerFormatRefused is in the chain of a provider error whose server
// refused the request's structured output field (AnswerFormatHint): the
// same request would be refused again, whatever the server's status.
var ErrAnswerFormatRefused = errors.New("the server refused the answer's schema")

// AnswerFormatHint adds, to the error of a request that asked for a
// structured answer (format, sent as param) and was refused for it, what to
// do instead: an OpenAI-compatible server without structured output
// refuses the field in words of its own (llama.cpp: "response_format type
// must be one of …", vLLM: "… JSON schema contains features not supported
// by xgrammar", Ollama: "invalid JSON schema in format"), with a 400, a 422
// or a 500. Any other error is returned as it is.
func AnswerFormatHint(err error, format *agent.AnswerFormat, param string) error {
	var pe *agent.ProviderError
	if format == nil || !errors.As(err, &pe) || pe.Status == 0 || pe.Status == http.StatusTooManyRequests {
		return err
	}
	if pe.Status != http.StatusBadRequest && pe.Status != http.StatusUnprocessableEntity && pe.Status < 500 {
		return err
	}
	msg := strings.ToLower(pe.Message)
	if !strings.Contains(msg, "schema") && !strings.Contains(msg, "format") {
		return err
	}
	pe.Hint = "the server refused the answer's schema (" + param + "); --schema-mode prompt puts the schema in the system prompt instead, and the answer is still checked here"
	pe.Err = errors.Join(ErrAnswerFormatRefused, pe.Err)
	return pe
}

package fakeapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// Conversations is the script of a server that plays many conversations at
// once, as a batch of runs sends them: each conversation, told apart by the
// text of its first user message, plays Steps from the start (or the
// script in Prompts that its prompt contains), and is checked for
// continuity on its own. "{{prompt}}" in a step's text or a call's
// arguments stands for that prompt. A conversation may send again the
// request it was last answered: a client killed before it wrote the
// answer down does so when it goes on; the step that answered it answers
// it again.
type Conversations struct {
	Steps []Step `json:"steps"`
	// Prompts are the scripts of the conversations whose prompt contains
	// the key; the longest key that matches wins.
	Prompts map[string][]Step `json:"prompts,omitempty"`
	// Latency holds back every answer (a step's own delay wins).
	Latency Duration `json:"latency,omitempty"`
	// RateLimit answers 429 to the requests over a rate, as the real APIs
	// do, before reading them.
	RateLimit *RateLimit `json:"rate_limit,omitempty"`
	// StrictRetryAfter makes a request that comes while the wait of a 429,
	// 503 or 529 Retry-After sent to any conversation still runs a
	// violation: clients that share a rate limit must all hold back.
	StrictRetryAfter bool `json:"strict_retry_after,omitempty"`
	// Batch is how the server's batches move on (batch.go).
	Batch *BatchPace `json:"batch,omitempty"`
}

// RateLimit lets through at most Limit requests in any Window; the others
// get a 429 with Retry-After set to RetryAfter (seconds, "1" when empty).
type RateLimit struct {
	Limit      int      `json:"limit"`
	Window     Duration `json:"window"`
	RetryAfter string   `json:"retry_after,omitempty"`
}

// LoadConversations reads a Conversations script.
func LoadConversations(b []byte) (*Conversations, error) {
	var c Conversations
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("fake API conversations script: %w", err)
	}
	if c.RateLimit != nil && (c.RateLimit.Limit <= 0 || c.RateLimit.Window <= 0) {
		return nil, fmt.Errorf("fake API conversations script: rate_limit needs a positive limit and window")
	}
	return &c, nil
}

// IsConversations reports whether a script is a Conversations object
// rather than an array of steps.
func IsConversations(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// NewOpenAIConversations starts a Chat Completions server playing c.
func NewOpenAIConversations(c *Conversations, key string) *OpenAI {
	s := &OpenAI{}
	s.batch, s.convs, s.key = c, map[string]*convState{}, key
	s.start(s.handle)
	return s
}

// NewAnthropicConversations starts a Messages server playing c.
func NewAnthropicConversations(c *Conversations, key string) *Anthropic {
	s := &Anthropic{}
	s.batch, s.convs, s.key = c, map[string]*convState{}, key
	s.start(s.handle)
	return s
}

// Refused is the number of requests the rate limit answered with a 429.
func (s *server) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// FirstRefused is when the rate limit first answered 429; zero if never.
func (s *server) FirstRefused() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstRefused
}

// Conversations is the number of conversations begun.
func (s *server) Conversations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.convs)
}

// conversation finds the conversation a request belongs to, beginning it
// if it is new. With a Conversations script it first applies the rate
// limit: false means the request has been answered, with a 429 that
// apiError writes in the API's shape.
func (s *server) conversation(w http.ResponseWriter, msgs []json.RawMessage, apiError func(w http.ResponseWriter, status int, msg string)) (*convState, bool) {
	if s.batch == nil {
		return &s.conv, true
	}
	prompt := firstUserText(msgs)
	c, limited := s.admit(prompt)
	if limited != "" {
		w.Header().Set("Retry-After", limited)
		apiError(w, http.StatusTooManyRequests, "Rate limit reached for requests. Please try again later.")
		return nil, false
	}
	return c, true
}

// admit applies the rate limit and the Retry-After check to a request of
// the conversation of prompt. It returns the conversation, or the
// Retry-After of a 429 to answer with.
func (s *server) admit(prompt string) (*convState, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.batch.StrictRetryAfter && now.Before(s.pausedUntil) {
		s.violations = append(s.violations, fmt.Sprintf("request %d: sent %v before the end of the wait a Retry-After asked for", len(s.requests), s.pausedUntil.Sub(now).Round(time.Millisecond)))
	}
	if rl := s.batch.RateLimit; rl != nil {
		window := time.Duration(rl.Window)
		keep := s.accepted[:0]
		for _, t := range s.accepted {
			if now.Sub(t) < window {
				keep = append(keep, t)
			}
		}
		s.accepted = keep
		if len(s.accepted) >= rl.Limit {
			s.refused++
			if s.firstRefused.IsZero() {
				s.firstRefused = now
			}
			if rl.RetryAfter == "" {
				return nil, "1"
			}
			return nil, rl.RetryAfter
		}
		s.accepted = append(s.accepted, now)
	}
	c, ok := s.convs[prompt]
	if !ok {
		c = &convState{prompt: prompt, steps: s.scriptFor(prompt)}
		s.convs[prompt] = c
	}
	return c, ""
}

// scriptFor is the steps of a new conversation, its prompt put in.
func (s *server) scriptFor(prompt string) []Step {
	steps, best := s.batch.Steps, -1
	for k, v := range s.batch.Prompts {
		if strings.Contains(prompt, k) && len(k) > best {
			steps, best = v, len(k)
		}
	}
	out := make([]Step, len(steps))
	for i, st := range steps {
		if st.Text != nil {
			t := strings.ReplaceAll(*st.Text, "{{prompt}}", prompt)
			st.Text = &t
		}
		calls := make([]ToolCall, len(st.ToolCalls))
		for j, tc := range st.ToolCalls {
			tc.Arguments = strings.ReplaceAll(tc.Arguments, "{{prompt}}", jsonInner(prompt))
			calls[j] = tc
		}
		st.ToolCalls = calls
		if st.Delay == 0 {
			st.Delay = s.batch.Latency
		}
		out[i] = st
	}
	return out
}

// jsonInner is s as it goes inside a JSON string, without the quotes.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// firstUserText is the text of the first user message, in any shape.
func firstUserText(msgs []json.RawMessage) string {
	for _, raw := range msgs {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Role != "user" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			return text
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &parts)
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "input_text" {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// pauseWriter notes the end of the wait each throttled answer asks for,
// from the moment its status is written: a client cannot have read it
// earlier, so a request before the end is one that did not wait.
type pauseWriter struct {
	http.ResponseWriter
	s *server
}

func (p *pauseWriter) WriteHeader(status int) {
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable || status == 529 {
		if d, ok := headerWait(p.Header()); ok {
			p.s.mu.Lock()
			if until := time.Now().Add(d); until.After(p.s.pausedUntil) {
				p.s.pausedUntil = until
			}
			p.s.mu.Unlock()
		}
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *pauseWriter) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (p *pauseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := p.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, fmt.Errorf("not a hijacker")
}

// headerWait reads Retry-After-Ms or Retry-After (seconds).
func headerWait(h http.Header) (time.Duration, bool) {
	var n float64
	if v := h.Get("Retry-After-Ms"); v != "" {
		if _, err := fmt.Sscanf(v, "%g", &n); err == nil {
			return time.Duration(n * float64(time.Millisecond)), true
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if _, err := fmt.Sscanf(v, "%g", &n); err == nil {
			return time.Duration(n * float64(time.Second)), true
		}
	}
	return 0, false
}

package check

import (
	"fmt"
	"net/url"
	"strings"
)

// Recorded HTTP traffic (cassettes, HTTP Archives): every request body sent
// to a chat, messages or responses endpoint is checked as a request body of
// its own, named by the interaction (or entry) it is in, with the status
// the API answered.

// ChatEndpoint reports whether a request to url carries a conversation:
// Chat Completions, Anthropic Messages (and its token counting), Responses,
// Gemini's generateContent and streamGenerateContent (Google AI and Vertex
// AI), Bedrock's Converse, Ollama's /api/chat.
func ChatEndpoint(url string) bool {
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		url = url[:i]
	}
	url = strings.TrimSuffix(url, "/")
	if strings.Contains(url, "/threads/") {
		return false // the Assistants API's messages of a thread
	}
	for _, p := range []string{"/chat/completions", "/messages", "/messages/count_tokens", "/responses",
		":generateContent", ":streamGenerateContent"} {
		if strings.HasSuffix(url, p) {
			return true
		}
	}
	return endpointShape(url) != shapeUnknown
}

// endpointShape is the shape of the conversation a request to url carries,
// for the APIs whose bodies do not say it: Bedrock's Converse
// (…/model/MODEL/converse, …/converse-stream), Ollama's /api/chat.
func endpointShape(url string) shape {
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		url = url[:i]
	}
	url = strings.TrimSuffix(url, "/")
	switch {
	case strings.Contains(url, "/model/") && (strings.HasSuffix(url, "/converse") || strings.HasSuffix(url, "/converse-stream")):
		return shapeBedrock
	case strings.HasSuffix(url, "/api/chat"):
		return shapeOllama
	}
	return shapeUnknown
}

// RecordedRequest checks one request of a recording, where names it in
// findings ("interactions[2]"), its body starting at line, status what the
// API answered (0 if not recorded). A POST to a chat, messages or
// responses endpoint is checked as a request body. A POST of a
// conversation (a body with a messages or contents array) to another
// endpoint is a conversation whose tool calls are not checked, counted so
// and reported: a recording is not passed on the interactions it holds
// that nobody checked. Anything else holds no conversation. A body sent to
// Converse or to Ollama's /api/chat is checked in the shape its endpoint
// takes.
func (v *File) RecordedRequest(where, method, url string, body []byte, line, status int) {
	if !strings.EqualFold(method, "POST") {
		return
	}
	if s := endpointShape(url); s != shapeUnknown {
		// Its messages are checked in the shape the endpoint takes.
		saved := v.presume
		v.presume = s
		v.CheckBody(where, body, line, status)
		v.presume = saved
		return
	}
	if ChatEndpoint(url) {
		v.CheckBody(where, body, line, status)
		return
	}
	if !holdsConversation(body) {
		return
	}
	v.stats.Conversations++
	v.uncheckedConv()
	v.bodyOf, v.status = where, status
	v.fileFinding(line, v.uncheckedSeverity(), "unchecked-conversation",
		"a conversation sent to %s, an endpoint validate does not read: its tool calls are not checked%s", endpoint(url), v.uncheckedHint())
	v.bodyOf, v.status = "", 0
}

// holdsConversation reports whether a request body is an object with a
// messages or contents array.
func holdsConversation(body []byte) bool {
	var s Scanner
	s.Reset(body)
	if s.PeekKind() != KindObject {
		return false
	}
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		key := string(s.Key())
		if (key == "messages" || key == "contents") && s.PeekKind() == KindArray {
			return true
		}
		s.Skip()
	}
	return false
}

// endpoint is a request's URL as a finding shows it: scheme, host and
// path, without what may hold a credential (user and password, the query,
// where Gemini's API takes its key).
func endpoint(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i]
		}
		return raw
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// CheckBody checks one recorded request body, where names it in findings
// ("interactions[2]"), line is where it starts, status what the API
// answered (0 if not recorded).
func (v *File) CheckBody(where string, body []byte, line, status int) {
	saved := v.sc
	v.sc = v.bodySc
	v.sc.ResetArena()
	v.bodyOf, v.status = where, status
	v.ConversationLine(body, line, true)
	v.bodyOf, v.status = "", 0
	v.bodySc = v.sc
	v.sc = saved
	v.bodies++
}

// NoBodies says why a recording of n interactions (or entries: what) had
// nothing to check, if it had not.
func (v *File) NoBodies(what string, n int) {
	if v.bodies == 0 {
		v.noConv = fmt.Sprintf("no request to a chat, messages or responses endpoint among the %d %s%s of this %s",
			n, what, plural(n, "", "s"), v.Describe(v.chosen.Info().Name))
	}
}

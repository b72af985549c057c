package check

import (
	"fmt"
	"strings"
)

// Recorded HTTP traffic (cassettes, HTTP Archives): every request body sent
// to a chat, messages or responses endpoint is checked as a request body of
// its own, named by the interaction (or entry) it is in, with the status
// the API answered.

// ChatEndpoint reports whether a request to url carries a conversation:
// Chat Completions, Anthropic Messages (and its token counting), Responses.
func ChatEndpoint(url string) bool {
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		url = url[:i]
	}
	url = strings.TrimSuffix(url, "/")
	if strings.Contains(url, "/threads/") {
		return false // the Assistants API's messages of a thread
	}
	for _, p := range []string{"/chat/completions", "/messages", "/messages/count_tokens", "/responses"} {
		if strings.HasSuffix(url, p) {
			return true
		}
	}
	return false
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

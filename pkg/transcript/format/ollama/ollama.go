// Package ollama reads requests to Ollama's native chat endpoint
// (/api/chat): one request body for the whole file (pretty-printed or not),
// or one a line ({"model", "messages", "tools", "options", "keep_alive",
// "think", "format", "stream"}). Its messages look like Chat Completions
// ones but are not: a tool call's arguments are a JSON object, a call may
// have no id, and a tool message names its tool in tool_name (newer
// versions add tool_call_id), so they are checked in the Ollama shape
// (api.Message in ollama/ollama api/types.go), not as Chat Completions.
package ollama

import (
	"bytes"
	"regexp"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// Name is the format's name.
const Name = "ollama"

// Format is the format of Ollama /api/chat request bodies.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "Ollama /api/chat request", Writer: "Ollama clients (ollama-python, ollama-js, the REST API)",
		Example: "chat.json: {\"model\": \"qwen3\", \"messages\": [… {\"role\": \"tool\", \"tool_name\": …}]}"}
}

// requestKeys are top-level keys of an /api/chat request that the Chat
// Completions API does not take.
var requestKeys = []string{"keep_alive", "think", "options", "format"}

// objectArgs finds a call's arguments written as an object, which Ollama
// takes and the Chat Completions API refuses.
var objectArgs = regexp.MustCompile(`"arguments"\s*:\s*\{`)

// Sniff knows a request body (the whole file, or its first line) by its
// model and messages beside a key only Ollama takes, or by what only
// Ollama's messages hold in the window: a tool message's tool_name, a
// call's arguments as an object.
func (format) Sniff(h *check.Head) check.Confidence {
	keys, ok := h.Object()
	if !ok || !ours(keys) {
		return check.No
	}
	return check.Certain
}

// ours reports whether the top-level keys of an object (as far as they are
// seen) are an /api/chat request's.
func ours(keys check.Fields) bool {
	if !keys.Has("model", check.KindString) {
		return false
	}
	msgs, ok := keys.Get("messages")
	if !ok || msgs.Kind != check.KindArray {
		return false
	}
	for _, k := range requestKeys {
		if keys.Has(k, check.KindAbsent) {
			return true
		}
	}
	if bytes.Contains(msgs.Raw, []byte(`"tool_name"`)) || objectArgs.Match(msgs.Raw) {
		return true
	}
	return false
}

func (format) Open(f *check.File) error {
	return f.OpenBodies(check.ShapeOllama, Name, ours)
}

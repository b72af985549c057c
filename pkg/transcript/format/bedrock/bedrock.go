// Package bedrock reads Amazon Bedrock Converse requests: one request body
// for the whole file (pretty-printed or not), or one a line, as an AWS SDK
// caller logs them ({"messages": [{"role": "user", "content": [{"text":
// …}]}], "system", "inferenceConfig", "toolConfig": {"tools":
// [{"toolSpec"}]}}; boto3's keyword arguments add "modelId"). Content
// blocks are unions keyed by their member: {"toolUse": {"toolUseId",
// "name", "input"}} in assistant messages, {"toolResult": {"toolUseId",
// "content", "status"}} in user messages. The messages are checked in the
// Bedrock Converse shape whatever they look like.
package bedrock

import (
	"bytes"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// Name is the format's name.
const Name = "bedrock"

// Format is the format of Bedrock Converse request bodies.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "Amazon Bedrock Converse request", Writer: "Bedrock Converse callers (boto3, AWS SDKs, Strands Agents, LangChain)",
		Example: "converse.json: {\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": …}]}], \"toolConfig\": …}"}
}

// requestKeys are the top-level keys only a Converse request has.
var requestKeys = []string{"toolConfig", "inferenceConfig", "additionalModelRequestFields", "guardrailConfig", "modelId"}

// Sniff knows a request body (the whole file, or its first line) by its
// messages beside a key only Converse takes, or by a toolUse or toolResult
// block among the messages the window shows.
func (format) Sniff(h *check.Head) check.Confidence {
	keys, ok := h.Object()
	if !ok || !ours(keys) {
		return check.No
	}
	return check.Certain
}

// ours reports whether the top-level keys of an object (as far as they are
// seen) are a Converse request's.
func ours(keys check.Fields) bool {
	msgs, ok := keys.Get("messages")
	if !ok || msgs.Kind != check.KindArray {
		return false
	}
	for _, k := range requestKeys {
		if keys.Has(k, check.KindAbsent) {
			return true
		}
	}
	if bytes.Contains(msgs.Raw, []byte(`"toolUse"`)) || bytes.Contains(msgs.Raw, []byte(`"toolResult"`)) {
		return true
	}
	return false
}

func (format) Open(f *check.File) error {
	return f.OpenBodies(check.ShapeBedrock, Name, ours)
}

// Package conversations reads JSONL of conversations, one a line: fine-tuning
// files ({"messages": […]}), request bodies logged one a line, tau-bench
// trajectories ({"traj": […]}), and request bodies wrapped one a line with
// what became of them (OpenAI Batch API input: {"custom_id", "method",
// "url", "body"}; traffic records: {"request", "status"}).
package conversations

import "github.com/agentloop/agentloop/pkg/transcript/internal/check"

// Name is the format's name.
const Name = "conversations"

// Format is the format of JSONL files of conversations.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "JSONL of conversations", Writer: "fine-tuning datasets, request logs, OpenAI Batch API input files",
		Example: "train.jsonl: {\"messages\": […]} a line", ByShape: true}
}

// Sniff knows a line that holds a conversation under messages, traj or
// input; one that wraps a request body under request or body; and, less
// surely, a Gemini-style contents or a history, which other formats may
// read better.
func (format) Sniff(h *check.Head) check.Confidence {
	line, ok := h.Line()
	if !ok || line.Kind != check.KindObject {
		return check.No
	}
	switch {
	case line.Has("messages", check.KindAbsent), line.Has("traj", check.KindAbsent), line.Has("input", check.KindArray):
		return check.Certain
	case line.Has("contents", check.KindAbsent), line.Has("history", check.KindArray):
		return check.Possible
	case (line.Has("request", check.KindObject) || line.Has("body", check.KindObject)) && !line.Has("type", check.KindAbsent) &&
		!line.Has("role", check.KindAbsent) && !line.Has("content", check.KindAbsent) && !record(line):
		return check.Likely
	}
	return check.No
}

// record reports whether a line has the keys of a record of a log.
func record(line check.FirstLine) bool {
	return line.Has("seq", check.KindAbsent) || line.Has("reason", check.KindAbsent) || line.Has("provider", check.KindAbsent) ||
		line.Has("message", check.KindObject)
}

func (format) Open(f *check.File) error { return f.Lines(f.ConversationLine) }

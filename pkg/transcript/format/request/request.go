// Package request reads one JSON document for the whole file: a request
// body ({"model", "messages" or "input", "tools", "system"…}), pretty-printed
// or not, or an array of messages; or one body wrapped with its recorded
// status ({"request", "status"}, {"body"}). It is streamed: messages are
// read and checked one at a time, with line numbers and message indexes.
package request

import "github.com/agentloop/agentloop/pkg/transcript/internal/check"

// Name is the format's name.
const Name = "request"

// Format is the format of whole-file request bodies.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "JSON document", Writer: "a saved request body, or an array of messages",
		Example: "request.json: {\"model\": …, \"messages\": […]}", ByShape: true}
}

// Sniff takes any whole-file JSON document (an array, or an object over
// several lines), surest of one with the keys of a request body.
func (format) Sniff(h *check.Head) check.Confidence {
	if h.Array() {
		return check.Likely
	}
	keys, ok := h.Document()
	if !ok {
		return check.No
	}
	for _, k := range []string{"messages", "input", "model", "traj"} {
		if keys.Has(k, check.KindAbsent) {
			return check.Likely
		}
	}
	if keys.Has("contents", check.KindAbsent) {
		return check.Possible
	}
	return check.Fallback
}

func (format) Open(f *check.File) error {
	more, err := f.Document(&check.DocReader{Body: true})
	if err != nil || !more || f.Stopped() {
		return err
	}
	// JSON lines whose first line, a request body, was too long to look
	// at whole.
	f.SetFormat("conversations")
	return f.Lines(f.ConversationLine)
}

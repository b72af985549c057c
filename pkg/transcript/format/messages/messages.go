// Package messages reads JSONL of bare messages, one a line, in any of the
// three wire shapes: what a program that logs the messages it sends keeps.
// All the lines of a file are one conversation.
package messages

import "github.com/agentloop/agentloop/pkg/transcript/internal/check"

// Name is the format's name.
const Name = "messages"

// Format is the format of JSONL files of bare messages.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "JSONL of messages", Writer: "anything that logs the messages it sends",
		Example: "messages.jsonl: {\"role\": \"user\", \"content\": …} a line", ByShape: true}
}

// Sniff takes any file of JSON lines that no other format knows: the
// reader of last resort for JSON lines, which checks what messages it finds.
func (format) Sniff(h *check.Head) check.Confidence {
	if _, ok := h.Line(); ok {
		return check.Fallback
	}
	return check.No
}

func (format) Open(f *check.File) error {
	if err := f.Lines(f.MessageLine); err != nil || f.Stopped() {
		return err
	}
	f.EndConv()
	return nil
}

// Package gemini reads Gemini API conversations: a generateContent (or
// streamGenerateContent) request body, {"contents": [{"role", "parts"}],
// "systemInstruction", "tools": [{"functionDeclarations"}]…}, pretty-printed
// or one a line; a chat history kept as an array of contents, or under
// "history" (Gemini CLI's /chat save checkpoints, the SDKs' chat histories);
// or JSONL of contents, one a line. Each conversation is checked with
// Gemini's rules: a function call turn answered by the next user turn, as
// many functionResponse parts as functionCall parts, matched by id when the
// calls have ids and by name otherwise.
package gemini

import "github.com/agentloop/agentloop/pkg/transcript/internal/check"

// Name is the format's name.
const Name = "gemini"

// Format is the format of Gemini API conversations.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "Gemini API contents", Writer: "the Gemini API's callers (google-genai, Vertex AI SDKs), Gemini CLI's /chat save",
		Example: "request.json: {\"contents\": [{\"role\": \"user\", \"parts\": […]}], \"tools\": […]}"}
}

// Sniff knows a document (or a line) whose contents are Gemini's: a
// "contents" array, or a history (an array, or "history") whose first
// element has "parts". A "contents" key alone is likely Gemini's; with its
// first content's "parts" in view, certainly.
func (format) Sniff(h *check.Head) check.Confidence {
	if h.Array() {
		if first, ok := arrayElem(h); ok && first.Has("parts", check.KindAbsent) {
			return check.Certain
		}
		return check.No
	}
	if keys, ok := h.Document(); ok {
		return sniffKeys(keys)
	}
	line, ok := h.Line()
	if !ok || line.Kind != check.KindObject {
		return check.No
	}
	if c := sniffKeys(line.Fields); c > check.No {
		return c
	}
	// JSONL of contents, one a line.
	if line.Has("parts", check.KindArray) && !line.Has("content", check.KindAbsent) && !line.Has("type", check.KindAbsent) {
		return check.Likely
	}
	return check.No
}

// sniffKeys says how sure the keys of an object are of a Gemini body or
// history.
func sniffKeys(keys check.Fields) check.Confidence {
	for _, k := range []string{"contents", "history"} {
		f, ok := keys.Get(k)
		if !ok || f.Kind != check.KindArray {
			continue
		}
		first, ok := f.Elem()
		switch {
		case ok && first.Has("parts", check.KindAbsent):
			return check.Certain
		case k == "contents":
			return check.Likely
		}
	}
	return check.No
}

// arrayElem is the first element of a whole-file array, as far as the head
// shows it.
func arrayElem(h *check.Head) (check.Fields, bool) {
	return check.Field{Kind: check.KindArray, Raw: h.Data}.Elem()
}

func (format) Open(f *check.File) error {
	h := f.Head()
	if _, doc := h.Document(); doc || h.Array() {
		more, err := f.Document(&check.DocReader{Name: Name, Arrays: []string{"contents", "history"}, Body: true, Request: true})
		if err != nil || !more || f.Stopped() {
			return err
		}
		return f.Lines(f.ConversationLine)
	}
	if line, ok := h.Line(); ok && !line.Has("contents", check.KindAbsent) && !line.Has("history", check.KindAbsent) {
		// Contents one a line: one conversation.
		if err := f.Lines(f.MessageLine); err != nil || f.Stopped() {
			return err
		}
		f.EndConv()
		return nil
	}
	return f.Lines(f.ConversationLine)
}

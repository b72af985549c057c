package textview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/htmlview"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// result prints one call's result: a line saying how it ran, then the
// start of its text (size is the content's, as the model read it). timed
// says the duration is known; note, if set, ends the line.
func (sh *shower) result(name, id string, meta transcript.Result, timed bool, size int64, text, note string) {
	p, st := sh.p, sh.p.st
	state := st.green("ok")
	if meta.IsError {
		state = "error"
		if meta.Error != "" {
			state += " (" + termtext.Display(meta.Error, 100) + ")"
		}
		state = st.red(state)
	}
	info := []string{"← " + st.cyan(termtext.Display(name, 200)) + " " + st.dim(termtext.Display(id, 200)), state}
	if meta.Server != "" {
		info = append(info, "mcp server "+termtext.Display(meta.Server, 200))
	}
	if meta.DurationMS > 0 || timed {
		info = append(info, htmlview.Millis(meta.DurationMS).String())
	}
	info = append(info, bytesize.Binary(int(size)))
	if meta.Truncated {
		info = append(info, "truncated")
	}
	if note != "" {
		info = append(info, st.dim(note))
	}
	p.line(2, strings.Join(info, " · "))
	budget := showResultBytes
	if st.width > 0 {
		budget = showResultLines * max(st.width-4, 20)
	}
	p.excerpt(4, text, showResultLines, budget)
}

// unsent prints the calls of the last turn that no message answers: those
// that finished before the run stopped (a result record holds the result,
// not yet sent to the model) and those cut short, which a resume runs.
func (sh *shower) unsent() {
	p, st := sh.p, sh.p.st
	first := true
	for _, c := range sh.lastCalls {
		if sh.answered[c.ID] {
			continue
		}
		if first {
			p.blank()
			first = false
		}
		if i := slices.IndexFunc(sh.finished, func(f transcript.CallResult) bool { return f.CallID == c.ID }); i >= 0 {
			f := sh.finished[i]
			sh.result(c.Name, c.ID, f.Result, true, p.long.Len(f.Content), f.Content, "recorded, not yet sent")
			continue
		}
		p.line(2, "… "+st.cyan(termtext.Display(c.Name, 200))+" "+st.dim(termtext.Display(c.ID, 200))+" · "+st.red("pending")+" · no result: replay --resume runs it")
	}
}

// flushAnswer prints a turn's text held back as a possible answer under
// its step: the conversation went on after it.
func (sh *shower) flushAnswer() {
	if sh.hasAnswer {
		sh.p.text(2, sh.answer)
	}
	sh.answer, sh.hasAnswer = "", false
}

// results shows a message that is not the model's: tool results, or a
// message's text.
func (sh *shower) results(d agent.Dialect, role string, rec transcript.Message) {
	p, st := sh.p, sh.p.st
	if len(rec.ImagesOf) > 0 {
		// The pictures of results (Chat Completions).
		p.line(0, st.bold("tool images")+" of "+termtext.Display(strings.Join(rec.ImagesOf, ", "), 1<<10))
		p.text(2, agent.ImagesText(messageContent(rec.Message)))
		return
	}
	results := d.ParseResults(rec.Message)
	if len(results) == 0 {
		p.line(0, st.bold(termtext.Display(role, 100)))
		p.text(2, messageText(rec.Message))
		return
	}
	for i, r := range results {
		sh.answered[r.CallID] = true
		meta := transcript.Result{CallID: r.CallID, IsError: r.IsError, ExitCode: -1}
		if i < len(rec.Results) {
			meta = rec.Results[i]
		}
		name := sh.callNames[r.CallID]
		if name == "" {
			name = meta.Name
		}
		meta.IsError = r.IsError
		// An error is shown as the text it carries, not as the JSON an
		// OpenAI model reads it in.
		note := sh.cleared.Note(rec.Seq, r.CallID)
		if note != "" {
			note = "✂ " + note
		}
		sh.result(name, r.CallID, meta, len(rec.Results) > 0, p.long.Len(r.Content), r.Text, note)
	}
}

// compactJSON is arguments on one line, as the model wrote them when they
// are not JSON.
func compactJSON(args []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, args); err != nil {
		return string(args)
	}
	return b.String()
}

// messageContent is a message's "content".
func messageContent(msg agent.Message) json.RawMessage {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(msg, &m)
	return m.Content
}

// messageText is the text of a non-assistant message of either shape.
func messageText(msg agent.Message) string {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return string(msg)
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return string(m.Content)
	}
	var b strings.Builder
	for _, part := range parts {
		switch part.Type {
		case "text", "input_text", "output_text":
			b.WriteString(part.Text)
		default:
			fmt.Fprintf(&b, "[%s]", part.Type)
		}
	}
	return b.String()
}

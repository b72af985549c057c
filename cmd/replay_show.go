package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// showResultLines is how many lines of each tool result --show prints.
const showResultLines = 6

func runReplayShow(opts *ReplayOptions) error {
	ios := opts.IO
	convs, err := loadConversations(ios, opts.File, true)
	if err != nil {
		return err
	}
	st := showStyle{}
	if ios.IsStdoutTTY() {
		st.width = ios.Width()
		st.color = ios.ColorEnabled()
	}
	for i, conv := range convs {
		name := opts.File
		if conv.Line > 0 {
			name = fmt.Sprintf("%s:%d", opts.File, conv.Line)
		}
		if i > 0 {
			fmt.Fprintln(ios.Out)
		}
		if err := renderTranscript(ios.Out, name, conv, st); err != nil {
			return err
		}
	}
	return nil
}

// showStyle is how --show renders: on a terminal with colours and cut to
// its width; piped, plain and whole, so the output is stable.
type showStyle struct {
	color bool
	width int
}

func (s showStyle) paint(code, text string) string {
	if !s.color || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s showStyle) bold(t string) string  { return s.paint("1", t) }
func (s showStyle) dim(t string) string   { return s.paint("2", t) }
func (s showStyle) cyan(t string) string  { return s.paint("36", t) }
func (s showStyle) red(t string) string   { return s.paint("31", t) }
func (s showStyle) green(t string) string { return s.paint("32", t) }

// fit makes a line fit the terminal: tabs expanded, cut at the width
// counting only the characters that show (not colour escapes).
func (s showStyle) fit(line string) string {
	if s.width <= 0 {
		return line
	}
	var b strings.Builder
	col, cut := 0, false
	for i := 0; i < len(line); {
		if line[i] == 0x1b { // an escape sequence takes no column
			j := strings.IndexByte(line[i:], 'm')
			if j < 0 {
				break
			}
			b.WriteString(line[i : i+j+1])
			i += j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		if cut {
			continue
		}
		w := 1
		if r == '\t' {
			w = 8 - col%8
		}
		if col+w > s.width-1 && i < len(line) || col+w > s.width {
			b.WriteString("…")
			cut = true
			continue
		}
		if r == '\t' {
			b.WriteString(strings.Repeat(" ", w))
		} else {
			b.WriteRune(r)
		}
		col += w
	}
	return b.String()
}

// renderTranscript writes a readable account of a conversation.
func renderTranscript(w io.Writer, name string, conv *transcript.Conversation, st showStyle) error {
	d := agent.DialectFor(conv.Shape)
	p := &printer{w: w, st: st}

	p.line(0, st.bold("transcript "+name))
	if h := conv.Header; h != nil {
		meta := []string{h.Provider, h.Model}
		if h.BaseURL != "" {
			meta = append(meta, h.BaseURL)
		}
		p.line(2, st.dim(strings.Join(nonEmpty(meta), " · ")))
		info := []string{"id " + h.ID, h.Time.UTC().Format("2006-01-02 15:04:05 UTC")}
		if h.Command != "" && h.Command != "run" {
			info = append(info, h.Command+" of "+h.Parent)
		}
		p.line(2, st.dim(strings.Join(info, " · ")))
		if names := toolNames(h.Tools); len(names) > 0 {
			p.line(2, st.dim(fmt.Sprintf("tools (%d): %s", len(names), strings.Join(names, ", "))))
		}
		if h.System != "" {
			p.line(2, st.dim("system: "+oneLineText(h.System, 200)))
		}
	} else {
		p.line(2, st.dim(fmt.Sprintf("%s messages, no header (%s)", conv.Shape, conv.Format)))
	}
	if conv.System != "" {
		p.line(2, st.dim("system: "+oneLineText(conv.System, 200)))
	}

	// Calls by id, to name the tool of each result; the calls of the last
	// assistant turn, and those of them a message answers.
	callNames := map[string]string{}
	var lastCalls []agent.Call
	answered := map[string]bool{}
	var total transcript.Usage
	step := 0
	lastText := ""
	msgs := make([]agent.Message, len(conv.Messages))
	for i, rec := range conv.Messages {
		msgs[i] = rec.Message
	}
	turnEnd := map[int]int{}
	for _, span := range agent.Turns(d, msgs) {
		turnEnd[span.Start] = span.End
	}
	for i := 0; i < len(conv.Messages); i++ {
		rec := conv.Messages[i]
		role := d.Role(rec.Message)
		p.blank()
		switch role {
		case "assistant":
			step++
			end := max(turnEnd[i], i+1)
			recs := conv.Messages[i:end]
			i = end - 1
			text, calls := renderTurn(p, d, recs, step, &total)
			lastCalls = calls
			clear(answered)
			for _, c := range calls {
				callNames[c.ID] = c.Name
			}
			lastText = ""
			if len(calls) == 0 {
				lastText = text
			}
		default:
			lastText = "" // the conversation went on after it
			results := d.ParseResults(rec.Message)
			if len(results) == 0 {
				p.line(0, st.bold(role))
				p.text(2, messageText(rec.Message))
				continue
			}
			for i, r := range results {
				answered[r.CallID] = true
				meta := transcript.Result{CallID: r.CallID, IsError: r.IsError, ExitCode: -1}
				if i < len(rec.Results) {
					meta = rec.Results[i]
				}
				name := callNames[r.CallID]
				if name == "" {
					name = meta.Name
				}
				meta.IsError = r.IsError
				p.result(name, r.CallID, meta, len(rec.Results) > 0, r.Content, "")
			}
		}
	}
	p.unsent(lastCalls, answered, conv.Finished)
	p.blank()
	end := conv.End
	switch {
	case end != nil:
		line := fmt.Sprintf("end: %s after %d step%s", end.Reason, end.Steps, plural(end.Steps, "", "s"))
		if end.Error != "" {
			line += ": " + oneLineText(end.Error, 300)
		}
		p.line(0, st.bold(line))
		total = end.Usage
	case conv.Format == "agentloop":
		p.line(0, st.bold(fmt.Sprintf("no end record: the run was stopped or is still going (%d step%s)", step, plural(step, "", "s"))))
	}
	if total != (transcript.Usage{}) {
		p.line(2, "tokens: "+usageText(total))
	}
	if lastText != "" && (end == nil || end.Reason == transcript.ReasonStop) {
		p.blank()
		p.line(0, st.bold("answer"))
		p.text(2, lastText)
	}
	return p.err
}

// printer writes indented lines and remembers the first error.
type printer struct {
	w   io.Writer
	st  showStyle
	err error
	// gap is a blank line owed before the next line: never two in a row,
	// never one at the end.
	gap bool
}

func (p *printer) line(indent int, s string) {
	if p.err != nil {
		return
	}
	if p.gap {
		_, p.err = fmt.Fprintln(p.w)
		p.gap = false
	}
	_, p.err = fmt.Fprintf(p.w, "%s\n", p.st.fit(strings.Repeat(" ", indent)+s))
}

func (p *printer) blank() { p.gap = true }

// text prints every line of a text.
func (p *printer) text(indent int, s string) {
	for _, l := range strings.Split(strings.TrimRight(safeText(s), "\n"), "\n") {
		p.line(indent, l)
	}
}

// excerpt prints the first n lines of a text and says how much is left.
func (p *printer) excerpt(indent int, s string, n int) {
	if s == "" {
		p.line(indent, p.st.dim("(empty)"))
		return
	}
	lines := strings.Split(strings.TrimRight(safeText(s), "\n"), "\n")
	for i, l := range lines {
		if i == n {
			p.line(indent, p.st.dim(fmt.Sprintf("… %d more line%s", len(lines)-n, plural(len(lines)-n, "", "s"))))
			return
		}
		p.line(indent, l)
	}
}

func usageText(u transcript.Usage) string {
	s := fmt.Sprintf("%d in / %d out", u.InputTokens, u.OutputTokens)
	if u.CacheReadInputTokens > 0 || u.CacheCreationInputTokens > 0 {
		s += fmt.Sprintf(" (cache %d read, %d written)", u.CacheReadInputTokens, u.CacheCreationInputTokens)
	}
	return s
}

func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// toolNames reads the names of wire-form tool definitions of either shape.
func toolNames(defs []json.RawMessage) []string {
	var names []string
	for _, raw := range defs {
		var t struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		if t.Name == "" {
			t.Name = t.Function.Name
		}
		names = append(names, t.Name)
	}
	return names
}

// messageText is the text of a non-assistant message of any shape.
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

package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// How much of each tool result --show prints: lines, and bytes (piped; on
// a terminal, as many as fill those lines).
const (
	showResultLines = 6
	showResultBytes = 4 << 10
	// showArgsBytes bounds the arguments shown of each call.
	showArgsBytes = 4 << 10
)

// runReplayShow renders a recorded run for reading. The file is read a
// record at a time and each record is printed as it is read, so memory is
// bounded by the longest record, not by the file. It is not checked
// first: 'agentloop validate' does that.
func runReplayShow(opts *ReplayOptions) error {
	ios := opts.IO
	in := ios.In
	if opts.File != "-" {
		f, err := os.Open(opts.File)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("read transcript: %w", err)}
		}
		defer f.Close()
		in = f
	}
	st := showStyle{}
	if ios.IsStdoutTTY() {
		st.width = ios.Width()
		st.color = ios.ColorEnabled()
	}
	out := bufio.NewWriterSize(ios.Out, 64<<10)
	sh := &shower{p: &printer{w: out, st: st}, file: opts.File}
	torn, err := transcript.ReadEach(in, sh.part)
	sh.finish()
	if ferr := out.Flush(); sh.p.err == nil {
		sh.p.err = ferr
	}
	if torn != nil {
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s:%d: the last line is incomplete (the writer was stopped mid-record); it is ignored\n", opts.File, torn.Line)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", opts.File, err)
	}
	return sh.p.err
}

// shower renders the parts of a recorded file as they are read.
type shower struct {
	p    *printer
	file string
	// convs counts the conversations begun.
	convs int

	// The conversation being shown.
	open   bool
	format string
	header *transcript.Header
	shape  string
	// detect is set while the shape is not settled: a file of bare
	// messages shows it as it goes.
	detect    bool
	step      int
	total     transcript.Usage
	callNames map[string]string
	// The calls of the last assistant turn, those of them a message
	// answers, and the result records of those that finished before the
	// run stopped.
	lastCalls []agent.Call
	answered  map[string]bool
	finished  []transcript.CallResult
	end       *transcript.End
	// answer is the text of the last assistant turn when it called no
	// tools: the final answer if nothing follows it. It is printed once,
	// under its step if the conversation goes on, else at the end.
	answer    string
	hasAnswer bool
}

func (sh *shower) part(pt transcript.Part) error {
	if c := pt.Conversation; c != nil {
		sh.finish()
		name := sh.file
		if c.Line > 0 {
			name = fmt.Sprintf("%s:%d", sh.file, c.Line)
		}
		sh.begin(name, c.Format, c.Header, c.Shape)
		if c.System != "" {
			sh.system(c.System)
		}
		for _, m := range c.Messages {
			sh.message(m)
		}
		sh.finished = c.Finished
		sh.end = c.End
		sh.finish()
		return sh.p.err
	}
	if !sh.open {
		sh.begin(sh.file, pt.Format, nil, "")
	}
	switch {
	case pt.Header != nil:
		sh.header = pt.Header
		sh.headerLines()
	case pt.Message != nil:
		sh.message(*pt.Message)
	case pt.Result != nil:
		sh.finished = append(sh.finished, *pt.Result)
	case pt.End != nil:
		sh.end = pt.End
	}
	return sh.p.err
}

// begin starts a conversation: its title, and what its header says.
func (sh *shower) begin(name, format string, h *transcript.Header, shape string) {
	if sh.convs > 0 {
		sh.p.blank()
	}
	sh.convs++
	*sh = shower{p: sh.p, file: sh.file, convs: sh.convs, open: true, format: format, header: h, shape: shape, detect: shape == "", callNames: map[string]string{}, answered: map[string]bool{}}
	sh.p.line(0, sh.p.st.bold("transcript "+displayText(name, 1<<10)))
	switch {
	case h != nil:
		sh.headerLines()
	case shape != "":
		sh.p.line(2, sh.p.st.dim(fmt.Sprintf("%s messages, no header (%s)", shape, format)))
	}
}

func (sh *shower) headerLines() {
	h, st := sh.header, sh.p.st
	if p := h.Provider; p == "openai" || p == "anthropic" {
		sh.shape, sh.detect = p, false
	}
	meta := []string{h.Provider, h.Model}
	if h.BaseURL != "" {
		meta = append(meta, transcript.RedactURL(h.BaseURL))
	}
	sh.p.line(2, st.dim(displayText(strings.Join(nonEmpty(meta), " · "), 1<<10)))
	info := []string{"id " + h.ID, h.Time.UTC().Format("2006-01-02 15:04:05 UTC")}
	if h.Command != "" && h.Command != "run" {
		info = append(info, h.Command+" of "+h.Parent)
	}
	sh.p.line(2, st.dim(displayText(strings.Join(info, " · "), 1<<10)))
	if names := toolNames(h.Tools); len(names) > 0 {
		sh.p.line(2, st.dim(displayText(fmt.Sprintf("tools (%d): %s", len(names), strings.Join(names, ", ")), 1<<16)))
	}
	if h.System != "" {
		sh.system(h.System)
	}
}

// system shows a system prompt whole.
func (sh *shower) system(text string) {
	first, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	sh.p.emit(2, sh.p.st.dim("system: "), first)
	if rest != "" {
		sh.p.text(10, rest)
	}
}

func (sh *shower) dialect() agent.Dialect { return agent.DialectFor(sh.shape) }

func (sh *shower) message(rec transcript.Message) {
	p, st := sh.p, sh.p.st
	if sh.detect {
		// No header to say the shape: each message may show it, and one
		// that is unmistakably Anthropic settles it.
		detected := transcript.DetectShape([]transcript.Message{rec})
		if sh.shape == "" && sh.header == nil {
			p.line(2, st.dim(fmt.Sprintf("%s messages, no header (%s)", detected, sh.format)))
		}
		if sh.shape == "" || detected == "anthropic" {
			sh.shape = detected
		}
		sh.detect = sh.shape != "anthropic"
	}
	sh.flushAnswer()
	d := sh.dialect()
	role := d.Role(rec.Message)
	p.blank()
	if role != "assistant" {
		sh.results(d, role, rec)
		return
	}
	sh.step++
	sh.lastCalls, sh.finished = nil, nil
	clear(sh.answered)
	t, err := d.ParseAssistant(rec.Message)
	if err != nil {
		p.line(0, st.red(fmt.Sprintf("step %d: unreadable assistant message: %s", sh.step, displayText(err.Error(), 1<<10))))
		return
	}
	head := []string{st.bold(fmt.Sprintf("step %d", sh.step)), "assistant"}
	if rec.FinishReason != "" {
		head = append(head, displayText(rec.FinishReason, 100))
	}
	if rec.Usage != nil {
		sh.total.Add(*rec.Usage)
		head = append(head, usageText(*rec.Usage))
	}
	if rec.LatencyMS > 0 {
		head = append(head, (time.Duration(rec.LatencyMS) * time.Millisecond).String())
	}
	p.line(0, strings.Join(head, " · "))
	if sh.shape == "anthropic" {
		for _, b := range otherBlocks(rec.Message) {
			p.line(2, st.dim(b))
		}
	}
	if len(t.Calls) == 0 {
		sh.answer, sh.hasAnswer = t.Text, t.Text != ""
		return
	}
	if t.Text != "" {
		p.text(2, t.Text)
	}
	sh.lastCalls = t.Calls
	for _, c := range t.Calls {
		sh.callNames[c.ID] = c.Name
		p.line(2, fmt.Sprintf("→ %s %s %s", st.cyan(displayText(c.Name, 200)), st.dim(displayText(c.ID, 200)), displayText(compactJSON(c.Arguments), showArgsBytes)))
	}
}

// finish ends the conversation being shown: how it ended, and its answer.
func (sh *shower) finish() {
	if !sh.open {
		return
	}
	sh.open = false
	sh.unsent()
	p, st, end := sh.p, sh.p.st, sh.end
	answer := sh.hasAnswer && (end == nil || end.Reason == transcript.ReasonStop)
	if answer {
		p.line(2, st.dim("(the answer, below)"))
	} else {
		sh.flushAnswer()
	}
	p.blank()
	total := sh.total
	switch {
	case end != nil:
		line := fmt.Sprintf("end: %s after %d step%s", displayText(end.Reason, 100), end.Steps, plural(end.Steps, "", "s"))
		if end.Error != "" {
			line += ": " + oneLineText(end.Error, 300)
		}
		p.line(0, st.bold(line))
		total = end.Usage
	case sh.format == "agentloop":
		p.line(0, st.bold(fmt.Sprintf("no end record: the run was stopped or is still going (%d step%s)", sh.step, plural(sh.step, "", "s"))))
	}
	if total != (transcript.Usage{}) {
		p.line(2, "tokens: "+usageText(total))
	}
	if answer {
		p.blank()
		p.line(0, st.bold("answer"))
		p.text(2, sh.answer)
	}
	sh.answer, sh.hasAnswer = "", false
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

// otherBlocks describes an Anthropic assistant message's blocks that are
// neither text nor tool_use: thinking, and server-side tools run by the API.
func otherBlocks(msg agent.Message) []string {
	var m struct {
		Content []struct {
			Type     string          `json:"type"`
			Thinking string          `json:"thinking"`
			Name     string          `json:"name"`
			Input    json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return nil
	}
	var out []string
	for _, b := range m.Content {
		switch {
		case b.Type == "text" || b.Type == "tool_use":
		case b.Type == "thinking":
			out = append(out, "thinking: "+oneLineText(b.Thinking, 160))
		case b.Type == "redacted_thinking":
			out = append(out, "thinking (redacted)")
		case b.Type == "server_tool_use" || b.Type == "mcp_tool_use":
			out = append(out, fmt.Sprintf("⚙ %s %s (run by the API)", displayText(b.Name, 200), oneLineText(string(b.Input), 200)))
		default:
			out = append(out, "⚙ "+displayText(b.Type, 200))
		}
	}
	return out
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
		case "text":
			b.WriteString(part.Text)
		default:
			fmt.Fprintf(&b, "[%s]", part.Type)
		}
	}
	return b.String()
}

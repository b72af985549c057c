package textview

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/htmlview"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// showTurn writes one assistant turn: its head (step, how it ended,
// tokens, time), then each message's reasoning, server-side tools, text and
// calls in the order they came. The text of a turn that calls no tools is
// held as the answer (see flushAnswer).
func (sh *shower) showTurn(recs []transcript.Message) {
	p, st, d := sh.p, sh.p.st, sh.dialect()
	sh.flushAnswer()
	p.blank()
	sh.step++
	sh.lastCalls, sh.finished = nil, nil
	clear(sh.answered)

	head := []string{st.bold(fmt.Sprintf("step %d", sh.step)), "assistant"}
	var usage transcript.Usage
	var latency int64
	finish, hasUsage := "", false
	for _, rec := range recs {
		if rec.FinishReason != "" {
			finish = rec.FinishReason
		}
		if rec.Usage != nil {
			usage.Add(*rec.Usage)
			hasUsage = true
		}
		if l := rec.LatencyMS; l > 0 {
			// Added without passing the largest int64: a record's
			// figures are whatever its writer put there.
			latency = min(latency, math.MaxInt64-l) + l
		}
	}
	if finish != "" {
		head = append(head, termtext.Display(finish, 100))
	}
	if hasUsage {
		sh.total.Add(usage)
		head = append(head, usageText(usage))
	}
	if latency > 0 {
		head = append(head, htmlview.Millis(latency).String())
	}
	head = append(head, requestNotes(recs)...)
	p.line(0, strings.Join(head, " · "))
	if line := clearedLine(recs); line != "" {
		p.line(2, st.dim(line))
	}

	turns := make([]*agent.Turn, len(recs))
	for i, rec := range recs {
		t, err := d.ParseAssistant(rec.Message)
		if err != nil {
			p.line(2, st.red("unreadable assistant message: "+termtext.Display(err.Error(), 1<<10)))
			continue
		}
		turns[i] = t
		sh.lastCalls = append(sh.lastCalls, t.Calls...)
	}
	var answer strings.Builder
	for i, t := range turns {
		if t == nil {
			continue
		}
		var notes []string
		switch {
		case d.ItemTurns():
			notes = itemNotes(recs[i].Message, sh.p.whole)
		case d.Shape() == wire.Messages:
			notes = otherBlocks(recs[i].Message)
		}
		for _, b := range notes {
			p.line(2, st.dim(b))
		}
		if len(sh.lastCalls) == 0 {
			answer.WriteString(t.Text)
			continue
		}
		if t.Text != "" {
			p.text(2, t.Text)
		}
		for _, c := range t.Calls {
			sh.callNames[c.ID] = c.Name
			p.line(2, fmt.Sprintf("→ %s %s %s", st.cyan(termtext.Display(c.Name, 200)), st.dim(termtext.Display(c.ID, 200)), termtext.Display(compactJSON(c.Arguments), showArgsBytes)))
		}
	}
	if len(sh.lastCalls) == 0 {
		sh.answer = answer.String()
		sh.hasAnswer = sh.answer != ""
	}
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
			out = append(out, "thinking: "+termtext.OneLine(b.Thinking, 160))
		case b.Type == "redacted_thinking":
			out = append(out, "thinking (redacted)")
		case b.Type == "server_tool_use" || b.Type == "mcp_tool_use":
			out = append(out, fmt.Sprintf("⚙ %s %s (run by the API)", termtext.Display(b.Name, 200), termtext.OneLine(string(b.Input), 200)))
		default:
			out = append(out, "⚙ "+termtext.Display(b.Type, 200))
		}
	}
	return out
}

// itemNotes describes a Responses output item that is neither text nor a
// function call: a reasoning item by its summaries (its ciphertext is for
// the API, not for reading), and the items of tools the API ran. whole
// puts back a long text taken out of the record.
func itemNotes(msg agent.Message, whole func(string) string) []string {
	var it struct {
		Type    string `json:"type"`
		Summary []struct {
			Text string `json:"text"`
		} `json:"summary"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Cipher *string `json:"encrypted_content"`
	}
	if json.Unmarshal(msg, &it) != nil {
		return nil
	}
	switch it.Type {
	case "message", "function_call", "":
		return nil
	case "reasoning":
		var out []string
		for _, s := range it.Summary {
			out = append(out, "reasoning: "+termtext.OneLine(s.Text, 300))
		}
		for _, c := range it.Content {
			out = append(out, "reasoning: "+termtext.OneLine(whole(c.Text), 300))
		}
		if len(out) == 0 {
			what := "no summary"
			if it.Cipher != nil && *it.Cipher != "" {
				what = "encrypted, no summary"
			}
			out = append(out, "reasoning ("+what+")")
		}
		return out
	}
	return []string{"⚙ " + termtext.Display(it.Type, 200) + " (run by the API)"}
}

func usageText(u transcript.Usage) string {
	s := fmt.Sprintf("%d in / %d out", u.InputTokens, u.OutputTokens)
	if u.CacheReadInputTokens > 0 || u.CacheCreationInputTokens > 0 {
		s += fmt.Sprintf(" (cache %d read, %d written)", u.CacheReadInputTokens, u.CacheCreationInputTokens)
	}
	return s
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

// system shows a system prompt whole.
func (sh *shower) system(text string) {
	first, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	sh.p.emit(2, sh.p.st.dim("system: "), first)
	if rest != "" {
		sh.p.text(10, rest)
	}
}

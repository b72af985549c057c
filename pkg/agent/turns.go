package agent

import "strings"

// TurnSpan locates one assistant turn in a conversation: msgs[Start:End].
type TurnSpan struct{ Start, End int }

// Turns finds the assistant turns of a conversation, in order: each
// assistant message, or (ItemTurns) each run of output items.
func Turns(d Dialect, msgs []Message) []TurnSpan {
	return turnSpans(len(msgs), d.ItemTurns(), func(i int) bool { return d.Role(msgs[i]) == "assistant" })
}

// turnSpans finds the assistant turns among n messages, of which
// assistant says whether the ith is the assistant's.
func turnSpans(n int, items bool, assistant func(int) bool) []TurnSpan {
	var out []TurnSpan
	for i := 0; i < n; i++ {
		if !assistant(i) {
			continue
		}
		j := i + 1
		for items && j < n && assistant(j) {
			j++
		}
		out = append(out, TurnSpan{Start: i, End: j})
		i = j - 1
	}
	return out
}

// ParseTurn reads a recorded turn, the messages of one TurnSpan: its text,
// its calls in order, and whether it calls tools, refused or ended.
func ParseTurn(d Dialect, msgs []Message) (*Turn, error) {
	t := &Turn{Messages: msgs, Stop: StopEnd}
	var text strings.Builder
	refused := false
	for _, m := range msgs {
		p, err := d.ParseAssistant(m)
		if err != nil {
			return nil, err
		}
		text.WriteString(p.Text)
		t.Calls = append(t.Calls, p.Calls...)
		refused = refused || p.Stop == StopRefusal
	}
	t.Text = text.String()
	switch {
	case len(t.Calls) > 0:
		t.Stop = StopToolUse
	case refused:
		t.Stop = StopRefusal
	}
	return t, nil
}

package cmd

import (
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// result prints one call's result: a line saying how it ran, then the
// start of its content. timed says the duration is known; note, if set,
// ends the line.
func (p *printer) result(name, id string, meta transcript.Result, timed bool, content, note string) {
	st := p.st
	state := st.green("ok")
	if meta.IsError {
		state = "error"
		if meta.Error != "" {
			state += " (" + meta.Error + ")"
		}
		state = st.red(state)
	}
	info := []string{"← " + st.cyan(safeText(name)) + " " + st.dim(safeText(id)), state}
	if meta.Server != "" {
		info = append(info, "mcp server "+safeText(meta.Server))
	}
	if meta.DurationMS > 0 || timed {
		info = append(info, (time.Duration(meta.DurationMS) * time.Millisecond).String())
	}
	info = append(info, byteSize(len(content)))
	if meta.Truncated {
		info = append(info, "truncated")
	}
	if note != "" {
		info = append(info, st.dim(note))
	}
	p.line(2, strings.Join(info, " · "))
	p.excerpt(4, content, showResultLines)
}

// unsent prints the calls of the last turn that no message answers: those
// that finished before the run stopped (a result record holds the result,
// not yet sent to the model) and those cut short, which a resume runs.
func (p *printer) unsent(calls []agent.Call, answered map[string]bool, finished []transcript.CallResult) {
	first := true
	for _, c := range calls {
		if answered[c.ID] {
			continue
		}
		if first {
			p.blank()
			first = false
		}
		if i := slices.IndexFunc(finished, func(f transcript.CallResult) bool { return f.CallID == c.ID }); i >= 0 {
			p.result(c.Name, c.ID, finished[i].Result, true, finished[i].Content, "recorded, not yet sent")
			continue
		}
		p.line(2, "… "+p.st.cyan(safeText(c.Name))+" "+p.st.dim(safeText(c.ID))+" · "+p.st.red("pending")+" · no result: replay --resume runs it")
	}
}

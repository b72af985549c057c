// Package textview draws a transcript as text for a terminal or a pipe:
// the --show of replay. It is the text beside pkg/htmlview's web page,
// read from the same records: on a terminal with colours and wrapped to its
// width; piped, plain and unwrapped, so the output is stable. Every text
// of the transcript goes through internal/termtext, so an escape sequence
// a model or a tool wrote is shown, not obeyed.
package textview

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/htmlview"
	"github.com/agentloop/agentloop/pkg/longtext"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// How much of each tool result is printed: lines, and bytes (piped; on a
// terminal, as many as fill those lines).
const (
	showResultLines = 6
	showResultBytes = 4 << 10
	// showArgsBytes bounds the arguments shown of each call.
	showArgsBytes = 4 << 10
	// LongText is the length (of its JSON) over which a text is read
	// back from the file when it is printed rather than held.
	LongText = 64 << 10
)

// Options say how a transcript is drawn.
type Options struct {
	// Name is the file's name, in the titles and in errors.
	Name string
	// Color paints titles and marks; Width wraps lines at that many
	// columns, 0 for none. Both are for a terminal.
	Color bool
	Width int
	// LongText is the length over which a text of a regular file is left
	// in it and read back when printed; 0 means the package's LongText.
	LongText int
}

// Result is what Render found besides the text it wrote.
type Result struct {
	// Torn is the last line when it was incomplete (the writer was
	// stopped mid-record); it is ignored.
	Torn *transcript.LineError
	// Long is where the texts left in the file are, nil if none was.
	Long *longtext.Store
}

// Render writes the conversations read from in to w. The input is read a
// record at a time and each record is printed as it is read; a text longer
// than the LongText option (an answer, a tool result) in a regular file is
// left in the file and read back a piece at a time when it is printed, so
// memory is bounded whatever the records hold. An input that is not a
// regular file (a pipe), which cannot be read twice, is read a record at
// a time: memory follows the longest record there. It is not checked
// first: 'agentloop validate' does that.
func Render(w io.Writer, in io.Reader, opts Options) (Result, error) {
	limit := opts.LongText
	if limit <= 0 {
		limit = LongText
	}
	var res Result
	var cleared htmlview.Clearings
	if f, ok := in.(*os.File); ok {
		var err error
		if cleared, err = clearedInFile(f); err != nil {
			return res, fmt.Errorf("read transcript: %w", err)
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			// A long text stays in the file, read back when it is
			// printed. Read from its start (a file on standard input
			// too, where clearedInFile left it).
			if _, err := f.Seek(0, io.SeekStart); err == nil {
				filter := longtext.NewFilter(f, f, limit)
				in, res.Long = filter, filter.Store
			}
		}
	}
	st := showStyle{color: opts.Color, width: opts.Width}
	out := bufio.NewWriterSize(w, 64<<10)
	sh := &shower{p: &printer{w: out, st: st, long: res.Long}, file: opts.Name}
	sh.cleared = cleared
	torn, err := transcript.ReadEach(in, sh.part)
	res.Torn = torn
	sh.finish()
	if ferr := out.Flush(); sh.p.err == nil {
		sh.p.err = ferr
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", opts.Name, err)
	}
	return res, sh.p.err
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
	// turn holds the items of a Responses turn until it ends.
	turn []transcript.Message
	// cleared is where each result a later request carried cleared was
	// first sent so (see clearedInFile).
	cleared htmlview.Clearings
}

func (sh *shower) part(pt transcript.Part) error {
	if c := pt.Conversation; c != nil {
		sh.finish()
		name := sh.file
		if c.Line > 0 {
			name = fmt.Sprintf("%s:%d", sh.file, c.Line)
		}
		sh.begin(name, c.Format, c.Header, c.Shape)
		sh.cleared = htmlview.ClearingsOf(c.Messages)
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
	*sh = shower{p: sh.p, file: sh.file, convs: sh.convs, cleared: sh.cleared, open: true, format: format, header: h, shape: shape, detect: shape == "", callNames: map[string]string{}, answered: map[string]bool{}}
	sh.p.line(0, sh.p.st.bold("transcript "+termtext.Display(name, 1<<10)))
	switch {
	case h != nil:
		sh.headerLines()
	case shape != "":
		sh.p.line(2, sh.p.st.dim(fmt.Sprintf("%s messages, no header (%s)", shape, format)))
	}
}

func (sh *shower) headerLines() {
	h, st := sh.header, sh.p.st
	if p := h.Provider; wire.Shape(p).Known() {
		sh.shape, sh.detect = p, false
	}
	meta := []string{h.Provider, h.Model}
	if h.BaseURL != "" {
		meta = append(meta, transcript.RedactURL(h.BaseURL))
	}
	sh.p.line(2, st.dim(termtext.Display(strings.Join(nonEmpty(meta), " · "), 1<<10)))
	info := []string{"id " + h.ID, h.Time.UTC().Format("2006-01-02 15:04:05 UTC")}
	if h.Command != "" && h.Command != "run" {
		info = append(info, h.Command+" of "+h.Parent)
	}
	sh.p.line(2, st.dim(termtext.Display(strings.Join(info, " · "), 1<<10)))
	if names := h.ToolNames(); len(names) > 0 {
		sh.p.line(2, st.dim(termtext.Display(fmt.Sprintf("tools (%d): %s", len(names), strings.Join(names, ", ")), 1<<16)))
	}
	for _, m := range h.MCPServers {
		how := m.URL
		if m.Transport == "stdio" {
			how = strings.Join(m.Command, " ")
		}
		sh.p.line(2, st.dim(termtext.Display(fmt.Sprintf("mcp server %s (%s: %s): %s", m.Name, m.Transport, how, strings.Join(m.Tools, ", ")), 1<<16)))
	}
	if h.System != "" {
		sh.system(h.System)
	}
}

func (sh *shower) dialect() agent.Dialect { return agent.DialectFor(sh.shape) }

func (sh *shower) message(rec transcript.Message) {
	p, st := sh.p, sh.p.st
	if sh.detect {
		// No header to say the shape: each message may show it, and the
		// first that is unmistakably of another API than Chat
		// Completions settles it.
		detected := transcript.DetectShape([]transcript.Message{rec})
		if sh.shape == "" && sh.header == nil {
			p.line(2, st.dim(fmt.Sprintf("%s messages, no header (%s)", detected, sh.format)))
		}
		if sh.shape == "" || wire.Shape(detected) != wire.Chat {
			sh.shape = detected
		}
		sh.detect = wire.Shape(sh.shape) == wire.Chat
	}
	d := sh.dialect()
	role := d.Role(rec.Message)
	if role == "assistant" && d.ItemTurns() {
		// A Responses turn is a run of output items: shown when it ends.
		sh.turn = append(sh.turn, rec)
		return
	}
	sh.endTurn()
	if role == "assistant" {
		sh.showTurn([]transcript.Message{rec})
		return
	}
	sh.flushAnswer()
	p.blank()
	sh.results(d, role, rec)
}

// endTurn shows the Responses turn whose items are held, if any.
func (sh *shower) endTurn() {
	if len(sh.turn) > 0 {
		sh.showTurn(sh.turn)
		sh.turn = nil
	}
}

// finish ends the conversation being shown: how it ended, and its answer.
func (sh *shower) finish() {
	if !sh.open {
		return
	}
	sh.endTurn()
	sh.open = false
	sh.unsent()
	p, st, end := sh.p, sh.p.st, sh.end
	answer := sh.hasAnswer && (end == nil || end.Reason == wire.ReasonStop)
	if answer {
		p.line(2, st.dim("(the answer, below)"))
	} else {
		sh.flushAnswer()
	}
	p.blank()
	total := sh.total
	switch {
	case end != nil:
		line := fmt.Sprintf("end: %s after %d step%s", termtext.Display(end.Reason, 100), end.Steps, english.Plural(end.Steps, "", "s"))
		if end.Error != "" {
			line += ": " + termtext.OneLine(end.Error, 300)
		}
		p.line(0, st.bold(line))
		total = end.Usage
	case sh.format == "agentloop":
		p.line(0, st.bold(fmt.Sprintf("no end record: the run was stopped or is still going (%d step%s)", sh.step, english.Plural(sh.step, "", "s"))))
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

package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// ReplayOptions are the inputs of `agentloop replay`.
type ReplayOptions struct {
	IO   *IOStreams
	File string

	Show   bool
	Resume bool
	Force  bool

	ToolsDirs    []string
	toolsDirsSet bool
	Ignore       []*regexp.Regexp
	Output       string
	Parallel     int

	// For --resume.
	Model         modelOptions
	MaxSteps      int
	NoTranscript  bool
	JSON          bool
	Verbose       bool
	Quiet         bool
	Stream        bool
	NoStream      bool
	TranscriptDir string
	// Config fills the model settings that neither a flag nor the
	// transcript gives.
	Config *Config

	// Approval holds --yes, --allow and --deny. A replay asks nobody: the
	// calls of confirm: true tools are re-run only when these allow them.
	Approval approvalOptions
}

func newCmdReplay(ios *IOStreams, runF func(context.Context, *ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{IO: ios}
	var ignore []string
	c := &cobra.Command{
		Use:   "replay FILE",
		Short: "Re-run a transcript's tool calls offline, show it, or resume it",
		Long: `Re-drive a saved run. By default the recorded assistant turns stand in for the
model (no network, no key): every tool call runs again on its recorded
arguments and its fresh result is compared with the recorded one. The report
(one line per call, a diff for each difference) goes to stderr, the recorded
final answer to stdout; the exit status is 1 when any result differs.

--show renders the transcript for reading. --resume sends the conversation to
the live model and continues the loop where it stopped (after --max-steps, an
API error or an interrupt), answering calls left pending first, into a new
transcript; the old file is never modified.

A replay asks nobody: the calls of tools marked confirm: true are skipped
(reported, not a difference) unless --allow NAME or --yes lets them run again;
--deny NAME skips the calls of NAME too. With --resume these flags work as for
'agentloop run'.

FILE is an agentloop transcript, a JSONL file of bare messages, or a JSON
request body; "-" reads stdin. A transcript that fails 'agentloop validate' is
refused unless --force.`,
		Example: `  agentloop replay run.jsonl                      # did any tool's output change?
  agentloop replay --ignore '\d{2}:\d{2}:\d{2}' run.jsonl
  agentloop replay --show run.jsonl | less
  agentloop replay --resume --max-steps 5 run.jsonl`,
		Args: exactArgs(1, "FILE"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.toolsDirsSet = c.Flags().Changed("tools-dir")
			if err := opts.useConfig(c); err != nil {
				return err
			}
			if opts.Show && opts.Resume {
				return flagErrorf("--show and --resume cannot be used together")
			}
			for _, re := range ignore {
				rx, err := regexp.Compile(re)
				if err != nil {
					return flagErrorf("--ignore %q: %v", re, err)
				}
				opts.Ignore = append(opts.Ignore, rx)
			}
			if opts.Parallel < 1 {
				return flagErrorf("--parallel %d: must be at least 1", opts.Parallel)
			}
			if opts.MaxSteps < 1 {
				return flagErrorf("--max-steps %d: must be at least 1", opts.MaxSteps)
			}
			if !opts.Resume {
				for _, name := range []string{"model", "provider", "base-url", "system", "temperature", "max-tokens", "max-retries", "timeout", "max-steps", "json", "no-transcript", "stream", "no-stream", "verbose", "quiet"} {
					if c.Flags().Changed(name) {
						return flagErrorf("--%s applies to --resume only", name)
					}
				}
			} else {
				if err := opts.Model.check(c); err != nil {
					return err
				}
				if err := checkOutputFlags(c, opts.Output, opts.NoTranscript, opts.Verbose, opts.Quiet, opts.Stream, opts.NoStream, opts.JSON); err != nil {
					return err
				}
				if len(ignore) > 0 {
					return flagErrorf("--ignore compares replayed results; it does not apply to --resume")
				}
			}
			if opts.Show && (opts.Output != "" || len(ignore) > 0 || opts.Approval.given()) {
				return flagErrorf("--show takes none of -o, --ignore, --yes, --allow and --deny")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			switch {
			case opts.Show:
				return runReplayShow(opts)
			case opts.Resume:
				return runReplayResume(c.Context(), opts)
			}
			return runReplay(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.Show, "show", false, "render the transcript for reading")
	f.BoolVar(&opts.Resume, "resume", false, "continue the conversation with the live model, into a new transcript")
	f.BoolVar(&opts.Force, "force", false, "replay a transcript even when it fails validation, and let -o overwrite a file that is not an agentloop transcript")
	addToolsDirFlag(c, &opts.ToolsDirs)
	f.StringArrayVar(&ignore, "ignore", nil, "mask text matching `REGEX` in both results before comparing (repeatable)")
	f.StringVarP(&opts.Output, "output", "o", "", "record the replay (or the resumed run) to `FILE`")
	f.IntVar(&opts.Parallel, "parallel", agent.DefaultParallel, "tool calls of one turn run at once")
	addModelFlags(c, &opts.Model)
	f.IntVar(&opts.MaxSteps, "max-steps", agent.DefaultMaxSteps, "with --resume: cap on new model calls")
	f.BoolVar(&opts.NoTranscript, "no-transcript", false, "with --resume: write no transcript")
	f.BoolVar(&opts.JSON, "json", false, "with --resume: print one JSON object instead of the answer")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "with --resume: show each model turn and tool call on stderr")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "with --resume: show nothing on stderr but errors")
	addStreamFlags(c, &opts.Stream, &opts.NoStream)
	addApprovalFlags(c, &opts.Approval)
	return c
}

// loadConversations reads FILE (or stdin for "-") and refuses a file that
// fails validation unless force is set.
func loadConversations(ios *IOStreams, file string, force bool) ([]*transcript.Conversation, error) {
	var (
		data []byte
		err  error
	)
	if file == "-" {
		data, err = io.ReadAll(ios.In)
	} else {
		data, err = os.ReadFile(file)
		if err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("read transcript: %w", err)}
		}
	}
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("read %s: %w", file, err)}
	}
	convs, err := transcript.ReadConversations(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, c := range convs {
		if c.Torn != nil {
			fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s:%d: the last line is incomplete (the writer was stopped mid-record); it is ignored\n", file, c.Torn.Line)
		}
	}
	if err := checkConversations(ios, file, data, convs, force); err != nil {
		return nil, err
	}
	return convs, nil
}

// loadConversation is loadConversations for a file that must hold one.
func loadConversation(ios *IOStreams, file string, force bool) (*transcript.Conversation, error) {
	convs, err := loadConversations(ios, file, force)
	if err != nil {
		return nil, err
	}
	if len(convs) != 1 {
		return nil, fmt.Errorf("%s holds %d conversations; this takes one (--show reads them all)", file, len(convs))
	}
	return convs[0], nil
}

// dialectFor is the grammar of a shape.
func dialectFor(shape string) agent.Dialect {
	if shape == "anthropic" {
		return agent.AnthropicDialect{}
	}
	return agent.OpenAIDialect{}
}

// recordedTurns parses the assistant turns of a conversation, with what the
// transcript recorded about how each ended.
func recordedTurns(d agent.Dialect, conv *transcript.Conversation) ([]*agent.Turn, error) {
	var turns []*agent.Turn
	for _, rec := range conv.Messages {
		if d.Role(rec.Message) != "assistant" {
			continue
		}
		t, err := d.ParseAssistant(rec.Message)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", rec.Seq, err)
		}
		t.FinishReason = rec.FinishReason
		switch rec.FinishReason {
		case "refusal", "content_filter":
			t.Stop = agent.StopRefusal
		case "length", "max_tokens", "model_context_window_exceeded":
			t.Stop = agent.StopMaxTokens
		case "pause_turn":
			t.Stop = agent.StopPause
		}
		if rec.Usage != nil {
			t.Usage = *rec.Usage
		}
		turns = append(turns, t)
	}
	return turns, nil
}

// replayRow is the verdict on one call.
type replayRow struct {
	line   int // the conversation's line in a conversations file
	step   int
	index  int // the call's position in its turn
	id     string
	name   string
	status string
	diff   []byte
}

const (
	statusSame       = "same"
	statusDifferent  = "DIFFERENT"
	statusMissing    = "missing tool"
	statusNowError   = "now an error"
	statusUnrecorded = "not recorded"
	// statusSkipped: not re-run, for want of approval (see approve.go).
	statusSkipped = "skipped"
)

type callKey struct {
	step int
	id   string
}

func runReplay(ctx context.Context, opts *ReplayOptions) error {
	ios := opts.IO
	convs, err := loadConversations(ios, opts.File, opts.Force)
	if err != nil {
		return err
	}
	if len(convs) > 1 && opts.Output != "" {
		return flagErrorf("-o records one conversation; %s holds %d", opts.File, len(convs))
	}
	var rows []replayRow
	answer := ""
	for _, conv := range convs {
		r, a, err := replayConversation(ctx, opts, conv)
		if err != nil {
			if conv.Line > 0 {
				return fmt.Errorf("%s:%d: %w", opts.File, conv.Line, err)
			}
			return err
		}
		rows, answer = append(rows, r...), a
	}
	failed := printReplayReport(ios, rows)
	if answer != "" && len(convs) == 1 {
		fmt.Fprintln(ios.Out, terminalText(ios, strings.TrimRight(answer, "\n")))
	}
	if failed {
		return errSilent
	}
	return nil
}

// replayConversation plays one recorded conversation against the tools and
// returns a row for each call and the recorded final answer.
func replayConversation(ctx context.Context, opts *ReplayOptions, conv *transcript.Conversation) (rows []replayRow, answer string, err error) {
	ios := opts.IO
	d := dialectFor(conv.Shape)
	turns, err := recordedTurns(d, conv)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", opts.File, err)
	}
	// --tools-dir, else the folders the run recorded (those that still
	// exist: a tool gone since is a "missing tool" row), else the
	// configured ones.
	dirs, explicit := opts.ToolsDirs, opts.toolsDirsSet
	if !explicit && conv.Header != nil && len(conv.Header.ToolsDirs) > 0 {
		dirs = conv.Header.ToolsDirs
	}
	reg, err := loadTools(ios, dirs, explicit)
	if err != nil {
		return nil, "", err
	}
	if err := opts.Approval.check(reg); err != nil {
		return nil, "", err
	}
	redact := secrets(ios)
	rec := readRecording(d, conv)

	var w *transcript.Writer
	if opts.Output != "" {
		defs, err := d.ToolDefs(reg.Definitions())
		if err != nil {
			return nil, "", err
		}
		h := transcript.Header{Command: "replay", Provider: d.Name(), Model: headerModel(conv), Tools: defs, ToolsDirs: dirs}
		if conv.Header != nil {
			h.BaseURL, h.System = conv.Header.BaseURL, conv.Header.System
		}
		if w, err = createChild(ios, opts.Output, true, opts.Force, opts.File, conv, h); err != nil {
			return nil, "", err
		}
	}

	fresh := map[callKey]tools.Result{}
	var order []callKey
	names := map[callKey]string{}
	index := map[callKey]int{}
	scripted := agent.NewScripted(d, headerModel(conv), turns)
	ap := newApprover(ios, reg, opts.Approval, true, nil)
	defer ap.Close()
	loop := &agent.Loop{
		Provider: scripted, Tools: ap, Parallel: opts.Parallel, Transcript: w, NoEnd: true,
		// One recorded turn at a time, so that the messages the recording
		// holds between one turn's results and the next turn go back in
		// where they were.
		MaxSteps: 1,
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.EventCallDone {
				k := callKey{e.Step, e.Call.ID}
				if _, dup := fresh[k]; !dup {
					order = append(order, k)
				}
				fresh[k], names[k], index[k] = *e.Result, e.Call.Name, e.Index
			}
		},
	}

	var out *agent.Outcome
	if w != nil {
		// The replay's own transcript ends with an end record whatever
		// happens, as a run's does.
		defer func() {
			end := transcript.End{Reason: transcript.ReasonStop, Steps: scripted.Played()}
			if out != nil {
				end.Steps, end.Usage, end.Reason = out.Steps, out.Usage, out.Reason
			}
			if conv.End != nil {
				end.Reason = conv.End.Reason
			}
			if err != nil {
				end.Reason, end.Error = transcript.ReasonError, err.Error()
				var ee *ExitError
				if errors.As(err, &ee) && ee.Code == ExitInterrupted {
					end.Reason = transcript.ReasonInterrupted
				}
			}
			werr := w.WriteEnd(end)
			if cerr := w.Close(); werr == nil {
				werr = cerr
			}
			if err == nil {
				err = werr
			}
		}()
	}

	state := agent.State{Messages: append([]agent.Message(nil), rec.msgs[:rec.turnAt(0)]...)}
	if err := recordPrefix(w, conv.Messages[:rec.turnAt(0)]); err != nil {
		return nil, "", err
	}
	for t := range turns {
		out, err = loop.Run(ctx, state)
		if err != nil {
			if errors.Is(err, errInterrupted) {
				return nil, "", &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
			}
			return nil, "", fmt.Errorf("replay: %w", err)
		}
		// Put back what the recording holds after this turn (and its
		// results) before the next one: a user's follow-up, say.
		var extra []transcript.Message
		for i := rec.turnAt(t) + 1; i < rec.turnAt(t+1); i++ {
			if len(d.ParseResults(rec.msgs[i])) == 0 {
				extra = append(extra, conv.Messages[i])
			}
		}
		if err := recordPrefix(w, extra); err != nil {
			return nil, "", err
		}
		state = agent.State{Messages: out.Messages, Steps: out.Steps, Usage: out.Usage}
		for _, m := range extra {
			state.Messages = append(state.Messages, m.Message)
		}
	}

	rows = make([]replayRow, 0, len(order))
	for _, k := range order {
		row := compareCall(d, k, names[k], fresh[k], rec, reg, opts.Ignore, redact)
		row.index, row.line = index[k], conv.Line
		rows = append(rows, row)
	}
	// Calls finish in any order; the report follows the order they were made.
	slices.SortStableFunc(rows, func(a, b replayRow) int {
		if a.step != b.step {
			return a.step - b.step
		}
		return a.index - b.index
	})
	return rows, recordedAnswer(conv, turns), nil
}

// recording is what a conversation recorded, arranged for a replay.
type recording struct {
	msgs []agent.Message
	// turns are the indexes in msgs of the assistant messages.
	turns []int
	// results are the recorded results by step and call id; errKnown
	// marks those whose is_error the transcript's metadata gives (an
	// OpenAI tool message does not say it: it is guessed from its text).
	results  map[callKey]agent.RecordedResult
	errKnown map[callKey]bool
}

func readRecording(d agent.Dialect, conv *transcript.Conversation) *recording {
	r := &recording{results: map[callKey]agent.RecordedResult{}, errKnown: map[callKey]bool{}}
	for i, m := range conv.Messages {
		r.msgs = append(r.msgs, m.Message)
		if d.Role(m.Message) == "assistant" {
			r.turns = append(r.turns, i)
			continue
		}
		for j, res := range d.ParseResults(m.Message) {
			k := callKey{len(r.turns), res.CallID}
			if j < len(m.Results) && m.Results[j].CallID == res.CallID {
				res.IsError = m.Results[j].IsError
				r.errKnown[k] = true
			}
			r.results[k] = res
		}
	}
	return r
}

// turnAt is the index of assistant turn t in msgs, or len(msgs) past the
// last one.
func (r *recording) turnAt(t int) int {
	if t < len(r.turns) {
		return r.turns[t]
	}
	return len(r.msgs)
}

// compareCall compares a call's fresh result with the recorded one.
func compareCall(d agent.Dialect, k callKey, name string, res tools.Result, recorded *recording, reg *tools.Registry, ignore []*regexp.Regexp, redact *transcript.Redactor) replayRow {
	row := replayRow{step: k.step, id: k.id, name: name}
	if res.Kind == kindSkipped {
		row.status = statusSkipped
		return row
	}
	rec, ok := recorded.results[k]
	if !ok {
		row.status = statusUnrecorded
		return row
	}
	// The fresh result, written as the recording wrote results. Without
	// the transcript's word on is_error, the recorded one was read from
	// the text, and so is the fresh one.
	msgs, err := d.ResultMessages([]agent.CallResult{{Call: agent.Call{ID: k.id, Name: name}, Result: res}})
	got, gotErr := res.Content, res.IsError
	if err == nil && len(msgs) == 1 {
		if rs := d.ParseResults(msgs[0].Message); len(rs) == 1 {
			got = rs[0].Content
			if !recorded.errKnown[k] {
				gotErr = rs[0].IsError
			}
		}
	}
	got = redact.RedactString(got)
	want := rec.Content
	for _, rx := range ignore {
		got = rx.ReplaceAllString(got, "<ignored>")
		want = rx.ReplaceAllString(want, "<ignored>")
	}
	switch {
	case got == want && gotErr == rec.IsError:
		row.status = statusSame
		return row
	case res.Kind == "unknown_tool" && !reg.Has(name) && !rec.IsError:
		row.status = statusMissing
	case gotErr && !rec.IsError:
		row.status = statusNowError
	default:
		row.status = statusDifferent
	}
	row.diff = unifiedDiff(want, got)
	return row
}

// unifiedDiff is a unified diff of the recorded and the replayed content.
func unifiedDiff(recorded, replayed string) []byte {
	nl := func(s string) []byte {
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		return []byte(s)
	}
	d := diff.Diff("recorded", nl(recorded), "replayed", nl(replayed))
	// The first line repeats the two names; the ---/+++ lines say them.
	if i := bytes.IndexByte(d, '\n'); i >= 0 && bytes.HasPrefix(d, []byte("diff ")) {
		d = d[i+1:]
	}
	return d
}

// printReplayReport writes the rows, each difference's diff after its row,
// and the summary on stderr, and says whether any call diverged.
func printReplayReport(ios *IOStreams, rows []replayRow) bool {
	// Ids, names and diffs come from the recording and the tools: shown,
	// not obeyed.
	idW, nameW := 0, 0
	for i := range rows {
		rows[i].id, rows[i].name = displayText(rows[i].id, 200), displayText(rows[i].name, 200)
		idW, nameW = max(idW, len(rows[i].id)), max(nameW, len(rows[i].name))
	}
	counts := map[string]int{}
	failed := false
	for _, r := range rows {
		prefix := ""
		if r.line > 0 {
			prefix = fmt.Sprintf("line %d ", r.line)
		}
		fmt.Fprintf(ios.ErrOut, "%sstep %d  %-*s  %-*s  %s\n", prefix, r.step, idW, r.id, nameW, r.name, r.status)
		counts[r.status]++
		if r.status != statusSame && r.status != statusUnrecorded && r.status != statusSkipped {
			failed = true
			io.WriteString(ios.ErrOut, safeText(string(r.diff)))
		}
	}
	var parts []string
	for _, s := range []string{statusSame, statusDifferent, statusMissing, statusNowError, statusUnrecorded, statusSkipped} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], strings.ToLower(s)))
		}
	}
	summary := "no tool calls to replay"
	if len(rows) > 0 {
		summary = fmt.Sprintf("%d call%s: %s", len(rows), plural(len(rows), "", "s"), strings.Join(parts, ", "))
	}
	fmt.Fprintf(ios.ErrOut, "replay: %s\n", summary)
	return failed
}

// recordedAnswer is the final answer the recording ended with, if it ended
// with one.
func recordedAnswer(conv *transcript.Conversation, turns []*agent.Turn) string {
	if len(turns) == 0 {
		return ""
	}
	last := turns[len(turns)-1]
	if len(last.Calls) > 0 {
		return ""
	}
	if conv.End != nil && conv.End.Reason != transcript.ReasonStop {
		return ""
	}
	return last.Text
}

func headerModel(conv *transcript.Conversation) string {
	if conv.Header != nil {
		return conv.Header.Model
	}
	return ""
}

// createChild creates the transcript of a replay or a resumed run; its
// header names the parent.
// path is -o's when explicit, else one of agentloop's choosing.
func createChild(ios *IOStreams, path string, explicit, force bool, parent string, conv *transcript.Conversation, h transcript.Header) (*transcript.Writer, error) {
	if parent != "-" && sameFile(path, parent) {
		return nil, flagErrorf("-o %s would overwrite the transcript being read", path)
	}
	var (
		w   *transcript.Writer
		err error
	)
	if explicit {
		w, err = createOutput(path, secrets(ios), force)
	} else {
		w, err = transcript.Create(path, secrets(ios))
	}
	if err != nil {
		return nil, err
	}
	h.Parent, h.Agentloop = parent, Version()
	if conv.Header != nil {
		h.ParentID = conv.Header.ID
	}
	if err := w.WriteHeader(h); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// recordPrefix writes recorded messages the loop does not write itself.
func recordPrefix(w *transcript.Writer, msgs []transcript.Message) error {
	if w == nil {
		return nil
	}
	for _, m := range msgs {
		m.Seq = 0
		if err := w.WriteMessage(m); err != nil {
			return err
		}
	}
	return nil
}

// checkConversations refuses a file that fails validation, printing the
// findings as validate does; calls left pending by an interrupt are fine.
// With force the findings are printed as warnings and the replay goes on.
func checkConversations(ios *IOStreams, file string, data []byte, convs []*transcript.Conversation, force bool) error {
	var errs []transcript.Finding
	_, err := transcript.Validate(file, bytes.NewReader(data), transcript.Options{AllowPending: true}, func(f transcript.Finding) {
		if f.Severity == transcript.Error && f.Code != "truncated-line" {
			errs = append(errs, f)
		}
	})
	if err != nil {
		return err
	}
	if len(errs) == 0 {
		return nil
	}
	for _, f := range errs {
		fmt.Fprintln(ios.ErrOut, safeText(f.String()))
	}
	if force {
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s fails validation (%d error%s); going on because of --force\n", file, len(errs), plural(len(errs), "", "s"))
		return nil
	}
	return fmt.Errorf("%s fails validation (%d error%s): a replay of it would not mean much; fix it, or pass --force", file, len(errs), plural(len(errs), "", "s"))
}

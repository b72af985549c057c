package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/trust"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// runContinue goes on with a recorded conversation (run -c): the prompt is
// its next message, asked the way the recording was unless a flag says
// otherwise, into a new transcript that names the one it continues.
func runContinue(ctx context.Context, opts *RunOptions, prompt string) error {
	ios := opts.IO
	path, err := findRun(opts.TranscriptDir, opts.Continue)
	if err != nil {
		return err
	}
	if err := checkFoundRun(opts.TranscriptDir, opts.Continue, path); err != nil {
		return err
	}
	conv, err := loadConversation(ios, path, refuseInvalid)
	var invalid *invalidError
	if errors.As(err, &invalid) {
		return fmt.Errorf("%s fails validation (%d error%s): it cannot be continued as it is; start a new run", path, invalid.n, plural(invalid.n, "", "s"))
	}
	if err != nil {
		return err
	}
	mo, err := recordedModel(ios, opts.Config, opts.Model, path, conv, "continued")
	if err != nil {
		return err
	}
	conv = withoutUnanswered(conv)
	st, _ := recordedState(conv)
	st.Prompt = prompt
	// The results the recording cleared stay cleared, by its policy.
	opts.Limits.useRecorded(conv.Header, path)

	// The tools folders and the tools the conversation had, unless
	// --tools-dir or --tool say otherwise.
	setup := liveSetup{command: "continue", model: &mo, tools: opts.recordedTools(conv), only: opts.Tools, parent: path, conv: conv, force: opts.Force}
	if h := conv.Header; h != nil && !opts.toolsDirsSet {
		names := h.ToolNames()
		setup.recorded = &names
		warnToolsDirsGone(ios, &opts.liveOptions, conv, names)
	}
	run, err := startLive(ctx, ios, &opts.liveOptions, setup)
	if err != nil {
		return err
	}
	out, err := run.loop.Run(run.ctx, st)
	return run.finish(ios, out, err)
}

// withoutUnanswered leaves out the conversation's last message when it is a
// question the model never answered (the run failed or was interrupted
// before): the new prompt takes its place rather than following it. The
// recording is not changed; the copy is.
func withoutUnanswered(conv *transcript.Conversation) *transcript.Conversation {
	d := agent.DialectFor(conv.Shape)
	n := len(conv.Messages)
	for n > 0 {
		msg := conv.Messages[n-1].Message
		// The pictures of tool results (Chat Completions) answer calls
		// as the results before them do: they stay.
		if len(conv.Messages[n-1].ImagesOf) > 0 {
			break
		}
		if role, text := transcript.MessageText(msg); role != "user" || text == "" || len(d.ParseResults(msg)) > 0 {
			break
		}
		n--
	}
	if n == len(conv.Messages) {
		return conv
	}
	c := *conv
	c.Messages = conv.Messages[:n]
	return &c
}

// checkFoundRun refuses a run looked up by id (or "last") in a transcripts
// folder others can put files in, or a transcript there of another user:
// going on runs the calls it left pending, with the user's tools. A path
// names the file the user chose.
func checkFoundRun(dir, ref, path string) error {
	if isRunPath(ref) || !sameDir(filepath.Dir(path), dir) {
		return nil
	}
	if why := trust.NotPrivate(dir); why != "" {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("the transcripts folder %s %s: a run found there may be one someone planted; name the transcript by its path to go on from it, or make the folder your own", dir, why)}
	}
	if why := trust.NotPrivate(path); why != "" {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s %s: a run found there may be one someone planted; name the transcript by its path to go on from it", path, why)}
	}
	return nil
}

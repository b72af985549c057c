package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentloop/agentloop/pkg/engine"
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
	if !isRunPath(opts.Continue) {
		if err := engine.CheckFoundRun(opts.TranscriptDir, path); err != nil {
			return err
		}
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
	conv = engine.WithoutUnanswered(conv)
	st, _ := engine.State(conv)
	st.Prompt = prompt
	// The results the recording cleared stay cleared, by its policy.
	opts.Limits.useRecorded(conv.Header, path)
	if err := opts.Schema.useRecorded(conv.Header, path); err != nil {
		return err
	}

	// The tools folders and the tools the conversation had, unless
	// --tools-dir or --tool say otherwise.
	setup := liveSetup{command: "continue", model: &mo, tools: opts.recordedTools(conv), only: opts.Tools, parent: path, conv: conv, force: opts.Force, state: &st}
	if h := conv.Header; h != nil && !opts.toolsDirsSet {
		names := h.ToolNames()
		setup.recorded = &names
	}
	run, err := startLive(ctx, ios, &opts.liveOptions, setup)
	if err != nil {
		return err
	}
	out, err := run.goOn()
	return run.finish(ios, out, err)
}

package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/trust"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/history"
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
	if err := opts.Schema.useRecorded(conv.Header, path); err != nil {
		return err
	}

	// The tools folders and the tools the conversation had, unless
	// --tools-dir or --tool say otherwise.
	setup := liveSetup{command: "continue", model: &mo, tools: opts.recordedTools(conv), only: opts.Tools, parent: path, conv: conv, force: opts.Force}
	if h := conv.Header; h != nil && !opts.toolsDirsSet {
		names := h.ToolNames()
		setup.recorded = &names
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
// folder others can put files in, or a transcript of another user, there
// or where the folder's index of runs written elsewhere (-o) says: going
// on runs the calls it left pending, with the user's tools. A path names
// the file the user chose.
func checkFoundRun(dir, ref, path string) error {
	if isRunPath(ref) {
		return nil
	}
	if why := trust.NotPrivate(dir); why != "" {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("the transcripts folder %s %s: a run found there may be one someone planted; name the transcript by its path to go on from it, or make the folder your own", dir, why)}
	}
	if index := history.IndexPath(dir); !sameDir(filepath.Dir(path), dir) {
		if why := trust.NotPrivate(index); why != "" {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s, which says where the runs written elsewhere are, %s: a run found through it may be one someone planted; name the transcript by its path to go on from it", index, why)}
		}
	}
	if why := trust.NotPrivate(path); why != "" {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s %s: a run found there may be one someone planted; name the transcript by its path to go on from it", path, why)}
	}
	return nil
}

// refInPrompt refuses a prompt whose first argument names a run: written
// with a space, `--continue 3f2a9c "and in Rome?"` gives -c no value, so
// the id would be sent as the start of a prompt to the last conversation,
// not to the one named. A first argument that names a run is the start
// of an id of the folder's (six characters or more, a digit among them:
// words such as "decade" are not taken for one) or an agentloop
// transcript's path. The whole prompt quoted as one argument is sent.
func refInPrompt(dir string, args []string) error {
	if len(args) == 0 {
		return nil
	}
	ref, what := args[0], ""
	switch {
	case strings.HasSuffix(ref, ".jsonl") && isTranscriptFile(ref):
		what = fmt.Sprintf("%q is a transcript: to go on with it", ref)
	case looksLikeID(ref):
		e, err := history.Lookup(dir, ref)
		var amb *history.AmbiguousError
		switch {
		case err == nil:
			what = fmt.Sprintf("%q is the start of run %s's id: to go on with that run", ref, e.ID())
		case errors.As(err, &amb):
			what = fmt.Sprintf("%q is the start of the ids of %d runs: to go on with one of them", ref, len(amb.Matches))
		default:
			return nil
		}
	default:
		return nil
	}
	return flagErrorf("%s, write --continue=%s (with the =: -c alone goes on with the last run, and what follows is the prompt); to ask the last run, quote the whole prompt as one argument", what, ref)
}

// looksLikeID reports whether s could be the start of a run's id as
// agentloop log prints it: hexadecimal, at least six characters, a digit
// among them.
func looksLikeID(s string) bool {
	if len(s) < 6 || len(s) > 16 {
		return false
	}
	digit := false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return digit
}

// isTranscriptFile reports whether path is a regular file that starts as
// an agentloop transcript does.
func isTranscriptFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	b := make([]byte, 64)
	n, _ := io.ReadFull(f, b)
	return bytes.HasPrefix(bytes.TrimLeft(b[:n], " \t"), []byte(`{"type":"header"`))
}

package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/replacefile"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/htmlview"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// writeHTMLReport draws the transcript file as a web page into out ("-"
// for stdout). Like --show it reads a transcript that fails validation.
// An interrupt ends it at once, whatever it is doing, and leaves no page
// half written.
func writeHTMLReport(ctx context.Context, ios *iostreams.IOStreams, file, out string) error {
	var convs []*transcript.Conversation
	err := interruptible(ctx, func() (err error) {
		convs, err = engine.LoadConversations(file, ios.In, ios.ErrOut, engine.DrawInvalid)
		return err
	})
	if err != nil {
		return err
	}
	if len(convs) != 1 {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s holds %d conversations; --html draws one (--show reads them all)", file, len(convs))}
	}
	return writePage(ctx, ios, convs[0], file, out)
}

// writePage draws the conversation read from file into out.
func writePage(ctx context.Context, ios *iostreams.IOStreams, conv *transcript.Conversation, file, out string) error {
	render := func(w io.Writer) error {
		// The template writes a page in thousands of small pieces: one
		// system call each cost as much as drawing it.
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := htmlview.Render(ctx, bw, conv, htmlview.Options{Name: file, Dialect: agent.DialectFor(conv.Shape), Safe: termtext.Safe}); err != nil {
			return err
		}
		return bw.Flush()
	}
	if out == "-" {
		// A reader that stops reading (a pager) holds a write up.
		return interruptible(ctx, func() error { return render(ios.Out) })
	}
	if file != "-" && sameFile(out, file) {
		return flagErrorf("--html %s would overwrite the transcript being read", out)
	}
	device, err := htmlview.CheckTarget(out)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	write := func() error { return replacefile.Write(out, render) }
	if device {
		// A pipe or a device, written to, not replaced: opening a pipe
		// waits for its reader, and a write for it to read.
		plain := write
		write = func() error { return interruptible(ctx, plain) }
	}
	// A page holds the whole conversation: as private as the transcript,
	// and never seen half written by a browser that has it open. Written
	// here, not on a goroutine of its own: the page stops at the
	// interrupt, and its temporary file is removed before the exit.
	if err := write(); err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	// On a terminal, where the page went: a person opens it next. A
	// script named the file itself.
	if ios.IsStderrTTY() {
		fmt.Fprintf(ios.ErrOut, "page: %s\n", termtext.Safe(out))
	}
	return nil
}

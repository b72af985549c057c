package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// loadConversations reads FILE (or stdin for "-") and refuses a file that
// fails validation unless goOn says to go on.
func loadConversations(ios *IOStreams, file string, goOn invalidPolicy) ([]*transcript.Conversation, error) {
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
			fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s:%d: the last line is incomplete (the writer was stopped mid-record); it is ignored\n", safeText(file), c.Torn.Line)
		}
	}
	if err := checkConversations(ios, file, data, convs, goOn); err != nil {
		return nil, err
	}
	return convs, nil
}

// loadConversation is loadConversations for a file that must hold one.
func loadConversation(ios *IOStreams, file string, goOn invalidPolicy) (*transcript.Conversation, error) {
	convs, err := loadConversations(ios, file, goOn)
	if err != nil {
		return nil, err
	}
	if len(convs) != 1 {
		// The file does not fit the command: a usage mistake, as -o with
		// such a file is.
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s holds %d conversations; this takes one (--show reads them all)", file, len(convs))}
	}
	return convs[0], nil
}

// invalidPolicy says what a command does with a transcript that fails
// validation: refuse it, or go on, saying why (the reason ends the warning).
type invalidPolicy string

const (
	refuseInvalid invalidPolicy = ""
	forceInvalid  invalidPolicy = "going on because of --force"
	drawInvalid   invalidPolicy = "drawing it as it is"
)

// forcePolicy is the policy of a command whose --force goes on.
func forcePolicy(force bool) invalidPolicy {
	if force {
		return forceInvalid
	}
	return refuseInvalid
}

// checkConversations refuses a file that fails validation, printing the
// findings as validate does; calls left pending by an interrupt are fine.
// A policy that goes on prints the findings as warnings, with its reason.
func checkConversations(ios *IOStreams, file string, data []byte, convs []*transcript.Conversation, goOn invalidPolicy) error {
	var errs []transcript.Finding
	_, err := transcript.Validate(file, bytes.NewReader(data), transcript.Options{AllowPending: true}, func(f transcript.Finding) {
		// An answer that does not match the run's schema is a finding of
		// what the model said, not of a conversation the API would
		// refuse: replay reports it itself, and run -c goes on from it.
		if f.Severity == transcript.Error && f.Code != "truncated-line" && f.Code != "answer-schema" {
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
	if goOn != refuseInvalid {
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s fails validation (%d error%s); %s\n", safeText(file), len(errs), plural(len(errs), "", "s"), goOn)
		return nil
	}
	return &invalidError{file: file, n: len(errs)}
}

// invalidError refuses a transcript that fails validation; the findings
// are printed already.
type invalidError struct {
	file string
	n    int
}

func (e *invalidError) Error() string {
	return fmt.Sprintf("%s fails validation (%d error%s): a replay of it would not mean much; fix it, or pass --force", e.file, e.n, plural(e.n, "", "s"))
}

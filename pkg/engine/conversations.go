package engine

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Invalid says what a command does with a transcript that fails
// validation: refuse it, or go on, saying why (the reason ends the
// warning).
type Invalid string

const (
	RefuseInvalid Invalid = ""
	ForceInvalid  Invalid = "going on because of --force"
	DrawInvalid   Invalid = "drawing it as it is"
)

// ForcePolicy is the policy of a command whose --force goes on.
func ForcePolicy(force bool) Invalid {
	if force {
		return ForceInvalid
	}
	return RefuseInvalid
}

// InvalidError refuses a transcript that fails validation; the findings
// are printed already. N is how many errors it has.
type InvalidError struct {
	File string
	N    int
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%s fails validation (%d error%s): a replay of it would not mean much; fix it, or pass --force", e.File, e.N, english.Plural(e.N, "", "s"))
}

// LoadConversations reads file (stdin for "-") and refuses a file that
// fails validation unless goOn says to go on. Its findings, and a torn
// last line, are written to warn.
func LoadConversations(file string, stdin io.Reader, warn io.Writer, goOn Invalid) ([]*transcript.Conversation, error) {
	var (
		data []byte
		err  error
	)
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
		if err != nil {
			return nil, usagef("read transcript: %w", err)
		}
	}
	if err != nil {
		return nil, usagef("read %s: %w", file, err)
	}
	convs, err := transcript.ReadConversations(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, c := range convs {
		if c.Torn != nil {
			fmt.Fprintf(warn, "agentloop: warning: %s:%d: the last line is incomplete (the writer was stopped mid-record); it is ignored\n", termtext.Safe(file), c.Torn.Line)
		}
	}
	if err := checkConversations(file, data, warn, goOn); err != nil {
		return nil, err
	}
	return convs, nil
}

// LoadConversation is LoadConversations for a file that must hold one.
func LoadConversation(file string, stdin io.Reader, warn io.Writer, goOn Invalid) (*transcript.Conversation, error) {
	convs, err := LoadConversations(file, stdin, warn, goOn)
	if err != nil {
		return nil, err
	}
	if len(convs) != 1 {
		// The file does not fit the command: a usage mistake, as -o with
		// such a file is.
		return nil, usagef("%s holds %d conversations; this takes one (--show reads them all)", file, len(convs))
	}
	return convs[0], nil
}

// checkConversations refuses a file that fails validation, printing the
// findings as validate does; calls left pending by an interrupt are fine.
// A policy that goes on prints the findings as warnings, with its reason.
func checkConversations(file string, data []byte, warn io.Writer, goOn Invalid) error {
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
		fmt.Fprintln(warn, termtext.Safe(f.String()))
	}
	if goOn != RefuseInvalid {
		fmt.Fprintf(warn, "agentloop: warning: %s fails validation (%d error%s); %s\n", termtext.Safe(file), len(errs), english.Plural(len(errs), "", "s"), goOn)
		return nil
	}
	return &InvalidError{File: file, N: len(errs)}
}

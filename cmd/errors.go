package cmd

import (
	"errors"
	"fmt"

	"github.com/agentloop/agentloop/pkg/engine"
)

// Exit codes, as documented in docs/exit-codes.md.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitBudget      = 3 // a budget ran out: steps, tokens, cost, context
	ExitProvider    = 4
	ExitSchema      = 5 // the answer does not match --schema after the retries
	ExitInterrupted = 130
)

// FlagError is a usage mistake: a bad flag, a missing argument. It prints the
// error and a pointer to --help, and exits 2.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// flagErrorf builds a FlagError.
func flagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// ExitError carries an exit code. Err is printed unless it is nil (the
// command has already said what happened).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// errSilent exits 1 without a message: the command has printed its findings.
var errSilent = &ExitError{Code: ExitFailure}

// exitCode maps an error returned by a command to the process exit code and
// the message to print, if any. The engine's setup errors say their kind.
func exitCode(err error) (int, string) {
	if err == nil {
		return ExitOK, ""
	}
	var fe *FlagError
	if errors.As(err, &fe) {
		return ExitUsage, err.Error()
	}
	switch engine.KindOf(err) {
	case engine.Usage, engine.Flag:
		return ExitUsage, err.Error()
	case engine.Key:
		return ExitProvider, err.Error()
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err == nil {
			return ee.Code, ""
		}
		return ee.Code, err.Error() // with what wraps it
	}
	return ExitFailure, err.Error()
}

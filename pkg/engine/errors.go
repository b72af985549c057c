package engine

import (
	"errors"
	"fmt"
)

// Kind says what a setup error asks of the user, and so how the command
// exits.
type Kind int

const (
	// Usage is a setting to fix (exit 2): a variable, a line of the
	// configuration file, a transcript's record.
	Usage Kind = iota + 1
	// Flag is a setting given on the command line (exit 2, with the
	// pointer to --help).
	Flag
	// Key is the provider's API key, missing or malformed (exit 4).
	Key
)

// SetupError is a run that could not be set up for a reason the user
// fixes before anything is sent; Kind says which.
type SetupError struct {
	Kind Kind
	Err  error
}

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// usagef is a Usage error.
func usagef(format string, args ...any) error {
	return &SetupError{Kind: Usage, Err: fmt.Errorf(format, args...)}
}

// flagf is a Flag error.
func flagf(format string, args ...any) error {
	return &SetupError{Kind: Flag, Err: fmt.Errorf(format, args...)}
}

// KindOf is the kind of a setup error err holds, 0 for any other error.
func KindOf(err error) Kind {
	var se *SetupError
	if errors.As(err, &se) {
		return se.Kind
	}
	return 0
}

package cmd

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cobraUsageError matches the texts of the usage errors cobra and pflag
// return themselves (flag errors arrive through SetFlagErrorFunc already).
var cobraUsageError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(unknown command ".*" for ".*"|unknown (shorthand )?flag: |invalid argument ".*" for ".*" flag: |flag needs an argument: |accepts \d+ arg\(s\), received \d+|requires at (least|most) \d+ arg\(s\), only received \d+|bad flag syntax: )`)
})

// cobraExclusiveError matches cobra's complaint about flags marked
// mutually exclusive: the group, then those of it that were given.
var cobraExclusiveError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^if any flags in the group \[([^]]*)\] are set none of the others can be; \[([^]]*)\] were all set$`)
})

// normalizeCobraError turns cobra's own usage complaints into FlagErrors,
// naming flags as the user typed them.
func normalizeCobraError(root *cobra.Command, args []string, err error) error {
	if err == nil {
		return nil
	}
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) {
		return &FlagError{Err: invalidFlagValue(args, ive)}
	}
	var fe *FlagError
	if errors.As(err, &fe) {
		return err
	}
	if m := cobraExclusiveError().FindStringSubmatch(err.Error()); m != nil {
		return &FlagError{Err: exclusiveError(root, args, strings.Fields(m[1]), strings.Fields(m[2]))}
	}
	if cobraUsageError().MatchString(err.Error()) {
		return &FlagError{Err: err}
	}
	return err
}

// exclusiveError says which flags of a group cannot go together, in the
// group's order, each by its short form when it has one: "-o and
// --no-transcript cannot be used together".
func exclusiveError(root *cobra.Command, args, group, given []string) error {
	var fs *pflag.FlagSet
	if c, _, err := root.Find(args); err == nil && c != nil {
		fs = c.Flags()
	}
	var names []string
	for _, name := range group {
		if !slices.Contains(given, name) {
			continue
		}
		shown := "--" + name
		if fs != nil {
			if fl := fs.Lookup(name); fl != nil && fl.Shorthand != "" {
				shown = "-" + fl.Shorthand
			}
		}
		names = append(names, shown)
	}
	if len(names) < 2 {
		return fmt.Errorf("%s cannot be used together", strings.Join(given, ", "))
	}
	return fmt.Errorf("%s and %s cannot be used together", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// invalidFlagValue says what is wrong with a flag's value in the words
// the configuration's errors use, instead of pflag's, which quote Go's
// parser ("strconv.ParseInt: parsing "x": invalid syntax"). The flag is
// named as it was typed: -j, or --jobs.
func invalidFlagValue(args []string, e *pflag.InvalidValueError) error {
	fl, value := e.GetFlag(), e.GetValue()
	name := "--" + fl.Name
	if fl.Shorthand != "" {
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == name || strings.HasPrefix(a, name+"=") {
				break
			}
			letters, _, _ := strings.Cut(a, "=")
			if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(letters[1:], fl.Shorthand) {
				name = "-" + fl.Shorthand
				break
			}
		}
	}
	var why string
	switch fl.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		why = "not a whole number"
		if errors.Is(e, strconv.ErrRange) {
			why = "too large a number"
		}
	case "float32", "float64":
		why = "not a number"
	case "duration":
		why = "not a duration: write a number and a unit, e.g. 30s, 5m or 1h"
	case "bool":
		why = fmt.Sprintf("want true or false (%s alone means true)", name)
	default:
		why = e.Unwrap().Error()
	}
	return fmt.Errorf("%s %q: %s", name, value, why)
}

package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/engine"
)

// checkProviders builds the provider of every model the items name, so
// that a missing key or a bad address stops the batch before it starts
// rather than failing each item. Nothing is sent.
func (o *BatchOptions) checkProviders(items []batch.Item) error {
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.Model] || !o.Shard.Has(it.ID) {
			continue
		}
		seen[it.Model] = true
		mo := o.itemModel(it)
		m := mo.engineModel(o.IO)
		_, err := engine.NewProvider(m, engine.Net{}, nil)
		if err == nil {
			// A budget the model cannot be held to (a cost without
			// its price) stops the batch before any item runs.
			l := o.Limits.forModel(m.Model)
			err = l.Check(m.Provider, m.Model)
		}
		if err != nil && it.Model != "" {
			// Where the model was named, keeping the error's exit
			// status (4 for a missing key).
			return fmt.Errorf("%s:%d: model %s: %w", o.Input, it.Line, strconv.Quote(it.Model), err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// itemModel is the model settings of an item: the batch's, with the
// item's model and system prompt when it has them. A model that names
// another provider gets that provider's base URL.
func (o *BatchOptions) itemModel(it batch.Item) modelOptions {
	mo := o.Model
	if it.Model != "" {
		mo.Model = it.Model
		if o.config != nil {
			mo.useBaseURL(o.config)
		}
	}
	if it.System != "" {
		mo.System = it.System
	}
	return mo
}

// readBatchInput reads INPUT ("-": stdin); bad input is a usage error
// listing every problem.
func readBatchInput(ios *IOStreams, name string, format batch.Format) ([]batch.Item, error) {
	var r io.Reader = ios.In
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("read input: %w", err)}
		}
		defer f.Close()
		r = f
	}
	items, err := batch.ReadInput(r, name, format)
	var ie *batch.InputError
	if errors.As(err, &ie) {
		return nil, inputError(ios, ie.Problems, name)
	}
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return items, nil
}

// inputError reports the problems of an input file, one a line, as a usage
// error; nil when there are none.
func inputError(ios *IOStreams, probs []batch.Problem, name string) error {
	switch len(probs) {
	case 0:
		return nil
	case 1:
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s:%d: %s", name, probs[0].Line, probs[0].Msg)}
	}
	for _, p := range probs {
		fmt.Fprintf(ios.ErrOut, "%s:%d: %s\n", safeText(name), p.Line, p.Msg)
	}
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%d problems in %s", len(probs), name)}
}

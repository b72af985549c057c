package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// BatchStatusOptions are the inputs of `agentloop batch status` and
// `agentloop batch cancel`.
type BatchStatusOptions struct {
	IO  *iostreams.IOStreams
	Dir string
	// BaseURL is the address of the provider's API, when it is not the
	// provider's variable's or its own.
	BaseURL string
	JSON    bool
}

func newCmdBatchStatus(ios *iostreams.IOStreams, runF func(context.Context, *BatchStatusOptions) error) *cobra.Command {
	opts := &BatchStatusOptions{IO: ios}
	c := &cobra.Command{
		Use:   "status OUTDIR",
		Short: "Show the rounds of a --batch-api batch and their batches",
		Long: `Show the rounds of a batch run with --batch-api, from OUTDIR's rounds.jsonl:
each batch's round, id, provider and model, its requests, and its status with
the provider's counts. A batch the log has not seen end is read from the
provider (its key from OPENAI_API_KEY or ANTHROPIC_API_KEY, its address from
--base-url or the provider's variable), so the status shown is the provider's
now, while a batch runs or after it was stopped.

Exit codes: 0 shown, 2 usage or an OUTDIR without rounds, 4 no API key.`,
		Example: `  agentloop batch status out
  agentloop batch status out --json`,
		Args: exactArgs(1, "OUTDIR"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBatchStatus(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.BaseURL, "base-url", "", "API base URL of the batches (default from OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the batches as JSON")
	return c
}

func newCmdBatchCancel(ios *iostreams.IOStreams, runF func(context.Context, *BatchStatusOptions) error) *cobra.Command {
	opts := &BatchStatusOptions{IO: ios}
	c := &cobra.Command{
		Use:   "cancel OUTDIR",
		Short: "Cancel the batches a --batch-api batch has in flight",
		Long: `Ask the provider to cancel every batch of OUTDIR's rounds.jsonl that has not
ended. A batch run waiting on one stops (exit 130) once the provider ends it;
what its batches had answered stays on record, and running the same batch
command again goes on, submitting again what was cancelled before it ran.

Exit codes: 0 every batch in flight asked to cancel (or none in flight), 1 a
batch the provider would not cancel, 2 usage or an OUTDIR without rounds,
4 no API key.`,
		Example: `  agentloop batch cancel out`,
		Args:    exactArgs(1, "OUTDIR"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBatchCancel(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.BaseURL, "base-url", "", "API base URL of the batches (default from OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	return c
}

// readRounds reads OUTDIR's log; an OUTDIR without one is a usage error.
func readRounds(dir string) ([]*batchapi.Batch, error) {
	if _, err := os.Stat(filepath.Join(dir, batchapi.LogName)); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s has no %s: it is not the OUTDIR of a batch run with --batch-api", dir, batchapi.LogName)}
	}
	bs, err := batchapi.ReadLog(dir)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return bs, nil
}

// batchServices builds the Batch API of each provider and model the log
// names, once each.
type batchServices struct {
	opts *BatchStatusOptions
	by   map[string]batchapi.Service
}

func (s *batchServices) of(b *batchapi.Batch) (batchapi.Service, error) {
	key := b.Provider + " " + b.Model
	if svc, ok := s.by[key]; ok {
		return svc, nil
	}
	mo := modelOptions{Provider: b.Provider, Model: b.Model, BaseURL: s.opts.BaseURL, MaxRetries: 2}
	svc, err := engine.BatchService(mo.engineModel(s.opts.IO), engine.Net{})
	if err != nil {
		return nil, err
	}
	s.by[key] = svc
	return svc, nil
}

// batchStatusJSON is a batch as batch status --json prints it.
type batchStatusJSON struct {
	Round     int              `json:"round"`
	Batch     int              `json:"batch"`
	ID        string           `json:"id"`
	Provider  string           `json:"provider"`
	Model     string           `json:"model"`
	Requests  int              `json:"requests"`
	Status    string           `json:"status"`
	Counts    map[string]int64 `json:"counts"`
	CreatedAt *time.Time       `json:"created_at,omitempty"`
	Results   string           `json:"results,omitempty"`
	Error     string           `json:"error,omitempty"`
}

func runBatchStatus(ctx context.Context, opts *BatchStatusOptions) error {
	ios := opts.IO
	bs, err := readRounds(opts.Dir)
	if err != nil {
		return err
	}
	svcs := &batchServices{opts: opts, by: map[string]batchapi.Service{}}
	rows := make([]batchStatusJSON, 0, len(bs))
	for _, b := range bs {
		r := batchStatusJSON{Round: b.Round, Batch: b.Number, ID: b.ID, Provider: b.Provider, Model: b.Model, Requests: len(b.Requests),
			Status: b.Status, Counts: b.Counts, Results: b.Results, Error: b.Error}
		if !b.CreatedAt.IsZero() {
			t := b.CreatedAt
			r.CreatedAt = &t
		}
		if b.ID != "" && b.InFlight() {
			svc, err := svcs.of(b)
			if err != nil {
				return err
			}
			st, err := svc.Get(ctx, b.ID)
			if err != nil {
				fmt.Fprintf(ios.ErrOut, "agentloop: warning: batch %s: %s; its status is the one last recorded\n", termtext.Safe(b.ID), termtext.Safe(secrets(ios).RedactString(err.Error())))
			} else {
				r.Status, r.Counts = st.State, st.Counts
			}
		}
		if b.ID == "" && r.Error == "" {
			r.Status = "not made"
		}
		rows = append(rows, r)
	}
	if opts.JSON {
		return writeJSON(ios, rows)
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "round\tbatch\tid\tprovider\tmodel\trequests\tstatus\tcounts")
	for _, r := range rows {
		id := r.ID
		if id == "" {
			id = "-"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Round, r.Batch, termtext.Safe(id), termtext.Safe(r.Provider), termtext.Safe(r.Model), r.Requests, termtext.Safe(r.Status), countsText(r.Counts))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = buf.WriteTo(ios.Out)
	return err
}

// countsText writes a batch's counts as the provider names them, sorted.
func countsText(c map[string]int64) string {
	if len(c) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, c[k])
	}
	return strings.Join(parts, ", ")
}

func runBatchCancel(ctx context.Context, opts *BatchStatusOptions) error {
	ios := opts.IO
	bs, err := readRounds(opts.Dir)
	if err != nil {
		return err
	}
	svcs := &batchServices{opts: opts, by: map[string]batchapi.Service{}}
	asked, failed := 0, 0
	for _, b := range bs {
		if b.ID == "" || !b.InFlight() {
			continue
		}
		svc, err := svcs.of(b)
		if err != nil {
			return err
		}
		st, err := svc.Cancel(ctx, b.ID)
		if err != nil {
			failed++
			fmt.Fprintf(ios.ErrOut, "agentloop: batch %s: %s\n", termtext.Safe(b.ID), termtext.Safe(secrets(ios).RedactString(err.Error())))
			continue
		}
		if st.Ended && !st.Cancelled {
			fmt.Fprintf(ios.Out, "batch %s had ended (%s): nothing to cancel\n", termtext.Safe(b.ID), termtext.Safe(st.State))
			continue
		}
		asked++
		fmt.Fprintf(ios.Out, "batch %s: %s\n", termtext.Safe(b.ID), termtext.Safe(st.State))
	}
	if asked == 0 && failed == 0 {
		fmt.Fprintln(ios.Out, "no batch in flight")
	}
	if failed > 0 {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d batch%s could not be cancelled", failed, plural(failed, "", "es"))}
	}
	return nil
}

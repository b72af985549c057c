package cmd

import (
	"bytes"
	"context"
	"fmt"
	"text/tabwriter"

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
	bs, err := batchapi.ReadRounds(dir)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return bs, nil
}

// batchServices makes the Batch API of each provider and model the log
// names.
func batchServices(opts *BatchStatusOptions) *batchapi.Services {
	return &batchapi.Services{New: func(provider, model string) (batchapi.Service, error) {
		mo := modelOptions{Provider: provider, Model: model, BaseURL: opts.BaseURL, MaxRetries: 2}
		return engine.BatchService(mo.engineModel(opts.IO), engine.Net{})
	}}
}

func runBatchStatus(ctx context.Context, opts *BatchStatusOptions) error {
	ios := opts.IO
	bs, err := readRounds(opts.Dir)
	if err != nil {
		return err
	}
	rows, err := batchapi.Statuses(ctx, bs, batchServices(opts), func(b *batchapi.Batch, err error) {
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: batch %s: %s; its status is the one last recorded\n", termtext.Safe(b.ID), termtext.Safe(secrets(ios).RedactString(err.Error())))
	})
	if err != nil {
		return err
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
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Round, r.Batch, termtext.Safe(id), termtext.Safe(r.Provider), termtext.Safe(r.Model), r.Requests, termtext.Safe(r.Status), batchapi.CountsText(r.Counts))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = buf.WriteTo(ios.Out)
	return err
}

func runBatchCancel(ctx context.Context, opts *BatchStatusOptions) error {
	ios := opts.IO
	bs, err := readRounds(opts.Dir)
	if err != nil {
		return err
	}
	asked, failed := 0, 0
	err = batchapi.CancelInFlight(ctx, bs, batchServices(opts), func(b *batchapi.Batch, st *batchapi.Status, err error) {
		switch {
		case err != nil:
			failed++
			fmt.Fprintf(ios.ErrOut, "agentloop: batch %s: %s\n", termtext.Safe(b.ID), termtext.Safe(secrets(ios).RedactString(err.Error())))
		case st.Ended && !st.Cancelled:
			fmt.Fprintf(ios.Out, "batch %s had ended (%s): nothing to cancel\n", termtext.Safe(b.ID), termtext.Safe(st.State))
		default:
			asked++
			fmt.Fprintf(ios.Out, "batch %s: %s\n", termtext.Safe(b.ID), termtext.Safe(st.State))
		}
	})
	if err != nil {
		return err
	}
	if asked == 0 && failed == 0 {
		fmt.Fprintln(ios.Out, "no batch in flight")
	}
	if failed > 0 {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d batch%s could not be cancelled", failed, plural(failed, "", "es"))}
	}
	return nil
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/wire"
)

// maxArgsInput bounds ARGS_JSON read from stdin.
const maxArgsInput = 16 << 20

// ToolsCallOptions are the inputs of `agentloop tools call`.
type ToolsCallOptions struct {
	IO *IOStreams
	ToolSourceOptions
	Name   string
	Args   string // "-" reads them from stdin
	CallID string
	JSON   bool
}

func newCmdToolsCall(ios *IOStreams, runF func(*ToolsCallOptions) error) *cobra.Command {
	opts := &ToolsCallOptions{IO: ios}
	c := &cobra.Command{
		Use:   "call NAME [ARGS_JSON]",
		Short: "Run one tool by hand, as the loop would",
		Long: `Run one tool exactly as the loop runs it for the model: the arguments are
checked against its schema, the tool gets the same environment, timeout and
output cap, and the result the model would see is printed on stdout. A failed
call (bad arguments, non-zero exit, timeout) prints the error on stderr and
exits 1.

ARGS_JSON is a JSON object and defaults to {}; "-" reads it from stdin.`,
		Example: `  agentloop tools call calc '{"expression": "2^10 / 3"}'
  echo '{"path": "README.md"}' | agentloop tools call read_file -`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return flagErrorf("%s needs NAME and optionally ARGS_JSON, got %d argument(s)", c.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name, opts.Args = args[0], "{}"
			if len(args) == 2 {
				opts.Args = args[1]
			}
			if err := opts.fromConfig(c, ios); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runToolsCall(c.Context(), opts)
		},
	}
	addToolsDirFlag(c, &opts.ToolsDirs)
	addMCPConfigFlag(c, &opts.MCPConfig)
	c.Flags().StringVar(&opts.CallID, "call-id", "call_cli", "the call id the tool sees in AGENTLOOP_CALL_ID")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the whole result (content, exit code, duration, ...) as JSON")
	addSandboxFlags(c)
	return c
}

func runToolsCall(ctx context.Context, opts *ToolsCallOptions) error {
	args := []byte(opts.Args)
	if opts.Args == "-" {
		b, err := io.ReadAll(io.LimitReader(opts.IO.In, maxArgsInput+1))
		if err != nil {
			return fmt.Errorf("read arguments from stdin: %w", err)
		}
		if len(b) > maxArgsInput {
			return fmt.Errorf("arguments on stdin are larger than %d MiB", maxArgsInput>>20)
		}
		args = b
	}
	// Only a server that could have the tool is started: the one known to
	// have it, when one is (see toolset.Selection.Known).
	sel := toolset.Selection{Only: []string{opts.Name}, Known: toolNames(opts.IO).Known}
	ts, err := loadToolSet(ctx, opts.IO, opts.sources(), sel, nil)
	if err != nil {
		return err
	}
	defer ts.Close()
	if ts.Reg.Has(opts.Name) {
		// Only the tool called counts: a refusal is about it.
		one, err := ts.Reg.Subset([]string{opts.Name})
		if err != nil {
			return err
		}
		if _, err := checkSandbox(opts.IO, &toolset.Set{Reg: one}, opts.sandbox.settings, false); err != nil {
			return err
		}
	}
	res, bytes := ts.CallOne(ctx, opts.Name, opts.CallID, args)
	if opts.JSON {
		if err := writeJSON(opts.IO, toolset.NewCallJSON(res, bytes)); err != nil {
			return err
		}
		if res.IsError {
			return errSilent
		}
		return nil
	}
	// Each image is a line of its own after the text, none before it.
	res.Content = toolset.CallText(res)
	if res.IsError {
		if res.Kind == wire.KindUnknownTool {
			return errors.New(res.Content)
		}
		return fmt.Errorf("%s: %s", opts.Name, res.Content)
	}
	fmt.Fprint(opts.IO.Out, terminalText(opts.IO, res.Content))
	if opts.IO.IsStdoutTTY() && res.Content != "" && !strings.HasSuffix(res.Content, "\n") {
		fmt.Fprintln(opts.IO.Out)
	}
	return nil
}

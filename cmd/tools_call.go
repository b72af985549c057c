package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// maxArgsInput bounds ARGS_JSON read from stdin.
const maxArgsInput = 16 << 20

// ToolsCallOptions are the inputs of `agentloop tools call`.
type ToolsCallOptions struct {
	IO        *IOStreams
	ToolsDirs []string
	// ToolsSetting names the setting that gave ToolsDirs; "" when
	// agentloop chooses the folders (see toolsSource).
	ToolsSetting string
	Name         string
	Args         string // "-" reads them from stdin
	CallID       string
	JSON         bool
}

func newCmdToolsCall(ios *IOStreams, runF func(*ToolsCallOptions) error) *cobra.Command {
	opts := &ToolsCallOptions{IO: ios}
	c := &cobra.Command{
		Use:   "call NAME [ARGS_JSON]",
		Short: "Run one tool by hand, as the loop would",
		Long: `Run one tool exactly as the loop runs it for the model: the arguments are checked
against its schema, the tool gets the same environment, timeout and output cap,
and the result the model would see is printed on stdout. A failed call (bad
arguments, non-zero exit, timeout) prints the error on stderr and exits 1.

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
			src, err := configToolsSource(c, ios)
			if err != nil {
				return err
			}
			opts.ToolsDirs, opts.ToolsSetting = src.dirs, src.setting
			if runF != nil {
				return runF(opts)
			}
			return runToolsCall(c.Context(), opts)
		},
	}
	addToolsDirFlag(c, &opts.ToolsDirs)
	c.Flags().StringVar(&opts.CallID, "call-id", "call_cli", "the call id the tool sees in AGENTLOOP_CALL_ID")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the whole result (content, exit code, duration, ...) as JSON")
	return c
}

// resultJSON is a Result as `tools call --json` prints it.
type resultJSON struct {
	Content    string `json:"content"`
	IsError    bool   `json:"is_error"`
	Kind       string `json:"kind,omitempty"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	Truncated  bool   `json:"truncated"`
	Bytes      int64  `json:"bytes"`
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
	reg, err := loadTools(opts.IO, toolsSource{opts.ToolsDirs, opts.ToolsSetting})
	if err != nil {
		return err
	}
	res := reg.Call(ctx, opts.Name, opts.CallID, args)
	if opts.JSON {
		if err := writeJSON(opts.IO, resultJSON{
			Content: res.Content, IsError: res.IsError, Kind: res.Kind, ExitCode: res.ExitCode,
			DurationMS: res.Duration.Milliseconds(), Truncated: res.Truncated, Bytes: res.Bytes,
		}); err != nil {
			return err
		}
		if res.IsError {
			return errSilent
		}
		return nil
	}
	if res.IsError {
		if res.Kind == transcript.KindUnknownTool {
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

// Package cmd holds agentloop's cobra commands. It is the only package that
// reads flags, the environment or the standard streams, and the only one that
// decides exit codes.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/gcpace"
	"github.com/agentloop/agentloop/internal/procgroup"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/internal/version"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// Version returns the version of this build: the one stamped at build
// time, else the module's (go install ...@v1.2.3), else "dev".
func Version() string {
	if v := version.Stamped(); v != "" {
		return v
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// sameInterrupt is how soon after the first a signal is taken as the same
// interrupt sent twice, not a person asking again: far less than anyone
// presses Ctrl-C twice, far more than between timeout(1)'s two kills.
const sameInterrupt = 100 * time.Millisecond

// errInterrupted is the cause of the context's cancellation on SIGINT,
// SIGTERM or SIGHUP.
var errInterrupted = errors.New("interrupted")

// Main runs agentloop with the process's arguments and streams and returns
// the exit code.
func Main() int {
	// Before anything reads a key. Should the kernel refuse, agentloop
	// runs as it would have without it.
	_ = protectSecrets()
	// A long run's conversation is never garbage: the collector's headroom
	// stays a few megabytes instead of growing with it.
	gcpace.Start()

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// A hangup (the terminal closed, an ssh connection dropped) is an
	// interrupt too: left to its default it killed agentloop alone, and
	// the tools, each in a process group of its own, ran on. Under nohup
	// it stays ignored.
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(sigs, syscall.SIGHUP)
	}
	defer signal.Stop(sigs)
	// done, not ctx: the first signal cancels ctx, and the second must
	// still be waited for.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		first := time.Now()
		cancel(errInterrupted)
		// A second signal means "now": no end record, no cleanup but the
		// tools' process groups, which nothing else would stop. One that
		// comes hard on the first is the same interrupt delivered twice:
		// timeout(1) signals the program and then its process group.
		for {
			select {
			case <-sigs:
				if time.Since(first) < sameInterrupt {
					continue
				}
				fmt.Fprintln(os.Stderr, "agentloop: interrupted again, exiting at once")
				procgroup.KillAll()
				os.Exit(ExitInterrupted)
			case <-done:
				return
			}
		}
	}()

	return Execute(ctx, iostreams.System(), os.Args[1:])
}

// Execute runs one command line against the given streams and returns the
// exit code. Errors are printed here, once.
func Execute(ctx context.Context, ios *iostreams.IOStreams, args []string) int {
	// Every write to stdout is watched: a command that succeeded but whose
	// output was lost (a full disk, a closed descriptor) must not exit 0.
	out := iostreams.Watch(ios.Out)
	ios.Out = out
	defer func() { ios.Out = out.Unwrap() }()
	// "agentloop --version" alone is answered before the command tree is
	// built: it is the one line cobra's version template would print.
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(ios.Out, "agentloop %s\n", Version())
		if err := out.Err(); err != nil {
			fmt.Fprintf(ios.ErrOut, "agentloop: %s\n", err)
			return ExitFailure
		}
		return ExitOK
	}
	root := buildRootCmd(ios, !helpOnly(args))
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		err = out.Err()
	}
	if err != nil && context.Cause(ctx) == errInterrupted && !isExitError(err) {
		err = &ExitError{Code: ExitInterrupted, Err: err}
	}
	err = normalizeCobraError(root, args, err)
	code, msg := exitCode(err)
	if msg != "" {
		// An error may quote a server, a tool or a file: its text is
		// shown, never obeyed, and no key in it is shown.
		fmt.Fprintf(ios.ErrOut, "agentloop: %s\n", termtext.Safe(secrets(ios).RedactString(msg)))
		// Only a mistake on the command line points at --help; a bad
		// configuration file or unreadable input exits 2 without it.
		var fe *FlagError
		if errors.As(err, &fe) || engine.KindOf(err) == engine.Flag {
			fmt.Fprintf(ios.ErrOut, "Run '%s --help' for usage.\n", commandPathFor(root, args))
		}
	}
	return code
}

func isExitError(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee) || engine.KindOf(err) != 0
}

// commandPathFor finds the command the arguments name, for the usage hint.
func commandPathFor(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return root.CommandPath()
	}
	return c.CommandPath()
}

// helpOnly reports whether the command line asks for nothing but the
// root's help, which neither shell completions nor flag groups change.
func helpOnly(args []string) bool {
	return len(args) == 1 && (args[0] == "--help" || args[0] == "-h")
}

// NewRootCmd builds the command tree.
func NewRootCmd(ios *iostreams.IOStreams) *cobra.Command { return buildRootCmd(ios, true) }

// buildRootCmd builds the command tree; without full, it leaves out what
// only running a command or completing one needs (flag groups, completion
// functions), for the root's help.
func buildRootCmd(ios *iostreams.IOStreams, full bool) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentloop",
		Short: "Run the ReAct tool-calling loop from a shell",
		Long: `agentloop sends a prompt to a model, runs the tools it asks for (shell-script
executors defined in tools.d/*.yaml, and the tools of MCP servers), answers
every tool call under its id, and prints the final answer on stdout. Every
message is written to a JSONL transcript that can be checked with
'agentloop validate' and re-driven with 'agentloop replay'.

Settings come from flags, AGENTLOOP_* environment variables and
$XDG_CONFIG_HOME/agentloop/config.yaml, in that order;
see 'agentloop config --help'.`,
		Example: `  agentloop run "What is the capital of France?"
  git diff | agentloop run "Review this change"
  agentloop --profile ollama run "What time is it in Tokyo?"
  agentloop validate run.jsonl && agentloop replay run.jsonl`,
		Version:       Version(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetVersionTemplate("agentloop {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{Err: err} })
	// agentloop completion is a command of its own, with examples.
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().String("profile", "", "use the settings of profile `NAME` in the configuration file (default $"+config.ProfileEnv+")")
	// -v is verbose for every command (--version has no short form), so
	// that 'agentloop -v run' and 'agentloop run -v' mean the same.
	root.PersistentFlags().BoolP("verbose", "v", false, "show more of what happens on stderr: each model turn and tool call")

	root.AddCommand(newVersionCmd(ios))
	root.AddCommand(newCmdRun(ios, nil))
	root.AddCommand(newCmdBatch(ios, nil))
	root.AddCommand(newCmdValidate(ios, nil))
	root.AddCommand(newCmdReplay(ios, nil))
	root.AddCommand(newCmdLog(ios, nil))
	root.AddCommand(newCmdSchema(ios))
	root.AddCommand(newCmdTools(ios))
	root.AddCommand(newCmdMCP(ios))
	root.AddCommand(newCmdConfig(ios))
	root.AddCommand(newCmdCompletion(ios, nil))
	if full {
		completeRoot(root, ios)
	}
	wrapHelp(root, ios.Width())
	return root
}

// completeRoot adds to the tree the flag groups and the shell completions.
func completeRoot(root *cobra.Command, ios *iostreams.IOStreams) {
	// -q belongs to the commands that run the loop; where it is, it
	// excludes the root's -v.
	for _, c := range root.Commands() {
		if c.Flags().Lookup("quiet") != nil {
			c.MarkFlagsMutuallyExclusive("verbose", "quiet")
		}
	}
	addCompletions(root, ios)
}

func newVersionCmd(ios *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version",
		Example: "  agentloop version\n  agentloop --version",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			fmt.Fprintf(ios.Out, "agentloop %s\n", Version())
			return nil
		},
	}
}

// plural is the one helper every message uses: "1 call", "2 calls".
var plural = english.Plural

// noArgs rejects positional arguments as a usage error.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return flagErrorf("%s takes no arguments, got %q", c.CommandPath(), args[0])
	}
	return nil
}

// exactArgs requires n positional arguments, named in the error.
func exactArgs(n int, names ...string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return flagErrorf("%s needs %d argument(s) (%s), got %d", c.CommandPath(), n, strings.Join(names, ", "), len(args))
		}
		return nil
	}
}

package cmd

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// CompletionOptions are the inputs of `agentloop completion`.
type CompletionOptions struct {
	IO             *iostreams.IOStreams
	Root           *cobra.Command
	Shell          string
	NoDescriptions bool
}

var completionShells = []string{"bash", "zsh", "fish", "powershell"}

func newCmdCompletion(ios *iostreams.IOStreams, runF func(*CompletionOptions) error) *cobra.Command {
	opts := &CompletionOptions{IO: ios}
	c := &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the script that teaches a shell to complete agentloop's commands and
flags, the names of the loaded tools (tools show, tools call, run --tool: an MCP
server's as its tools: list names them, or as it offered them when it last
started; completing starts no server), model names (--model: the
configuration's models list and the current model), profiles (--profile),
providers, and transcript files (replay, validate).

bash (with the bash-completion package installed):
  source <(agentloop completion bash)          # in this shell
  mkdir -p ~/.local/share/bash-completion/completions
  agentloop completion bash > ~/.local/share/bash-completion/completions/agentloop

zsh (with "fpath=(~/.zfunc $fpath)" before "autoload -U compinit; compinit"
in ~/.zshrc):
  mkdir -p ~/.zfunc
  agentloop completion zsh > ~/.zfunc/_agentloop

fish:
  mkdir -p ~/.config/fish/completions
  agentloop completion fish > ~/.config/fish/completions/agentloop.fish

PowerShell:
  agentloop completion powershell | Out-String | Invoke-Expression

Open a new shell afterwards.`,
		Example: `  source <(agentloop completion bash)
  agentloop completion zsh > ~/.zfunc/_agentloop
  agentloop completion fish > ~/.config/fish/completions/agentloop.fish`,
		ValidArgs: completionShells,
		Args:      exactArgs(1, "SHELL"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Shell, opts.Root = args[0], c.Root()
			if !slices.Contains(completionShells, opts.Shell) {
				return flagErrorf("no completion for %q: use bash, zsh, fish or powershell", opts.Shell)
			}
			if runF != nil {
				return runF(opts)
			}
			return runCompletion(opts)
		},
	}
	c.Flags().BoolVar(&opts.NoDescriptions, "no-descriptions", false, "complete without the descriptions shown beside each choice")
	return c
}

func runCompletion(opts *CompletionOptions) error {
	w, root, desc := opts.IO.Out, opts.Root, !opts.NoDescriptions
	switch opts.Shell {
	case "bash":
		return root.GenBashCompletionV2(w, desc)
	case "zsh":
		if desc {
			return root.GenZshCompletion(w)
		}
		return root.GenZshCompletionNoDesc(w)
	case "fish":
		return root.GenFishCompletion(w, desc)
	default:
		if desc {
			return root.GenPowerShellCompletionWithDesc(w)
		}
		return root.GenPowerShellCompletion(w)
	}
}

// addCompletions attaches the dynamic completions to the command tree: the
// arguments of each command and the values of flags, by flag name. A
// command with no completion of its own offers no files.
func addCompletions(root *cobra.Command, ios *iostreams.IOStreams) {
	args := map[string]cobra.CompletionFunc{
		"agentloop tools show":  completeToolArg(ios),
		"agentloop tools call":  completeToolArg(ios),
		"agentloop replay":      completeTranscripts,
		"agentloop validate":    completeTranscripts,
		"agentloop batch":       completeBatchInput,
		"agentloop batch merge": completeDirs,
		"agentloop log show":    completeRuns(ios),
		"agentloop log path":    completeRuns(ios),
	}
	noFiles := cobra.NoFileCompletions
	flags := map[string]cobra.CompletionFunc{
		"model":     completeModels(ios),
		"provider":  completeProviders,
		"tool":      completeToolFlag(ios),
		"tools-dir": completeDirs,
		"dir":       completeDirs,
		"continue":  completeRuns(ios),
		"input": cobra.FixedCompletions([]string{
			"agentloop\tan agentloop transcript", "messages\tJSONL of bare messages",
			"conversations\tJSONL of {\"messages\": [...]}", "request\ta JSON request body",
		}, cobra.ShellCompDirectiveNoFileComp),
		"shape": cobra.FixedCompletions([]string{string(wire.Chat), string(wire.Messages)}, cobra.ShellCompDirectiveNoFileComp),
	}
	for _, name := range []string{"base-url", "system", "temperature", "max-tokens", "max-retries", "timeout", "idle-timeout", "max-steps", "parallel", "ignore", "call-id"} {
		flags[name] = noFiles
	}
	_ = root.RegisterFlagCompletionFunc("profile", completeProfiles(ios))

	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f, ok := args[c.CommandPath()]; ok {
			c.ValidArgsFunction = f
		} else if c.ValidArgsFunction == nil && len(c.ValidArgs) == 0 {
			c.ValidArgsFunction = noFiles
		}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			// batch merge --input is a file, not validate's format.
			if fl.Name == "input" && c.CommandPath() == "agentloop batch merge" {
				return
			}
			if f, ok := flags[fl.Name]; ok {
				_ = c.RegisterFlagCompletionFunc(fl.Name, f)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// shownCompletion is a candidate and its description as the shell shows
// them on the terminal: a configuration's, a tools folder's or a server's
// text, its escape sequences shown, not obeyed, and no key in it shown.
func shownCompletion(name, desc string) cobra.Completion {
	name = termtext.Display(name, len(name))
	if desc == "" {
		return name
	}
	return cobra.CompletionWithDesc(name, termtext.Display(transcript.NewRedactor().RedactString(desc), len(desc)))
}

// completeTranscripts offers transcript files.
func completeTranscripts(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []string{"jsonl", "json"}, cobra.ShellCompDirectiveFilterFileExt
}

// completeBatchInput offers files for batch's INPUT, and nothing after it.
func completeBatchInput(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveDefault
}

// completeDirs offers folders.
func completeDirs(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

func completeProviders(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if c.Name() == "show" && c.Parent() != nil && c.Parent().Name() == "tools" {
		return []string{"openai\tthe Chat Completions form", "responses\tthe Responses API form", "anthropic\tthe Messages API form"}, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{
		"openai\tChat Completions: OpenAI and compatible servers (Ollama, vLLM, llama.cpp)",
		"responses\tthe OpenAI Responses API: reasoning kept between steps",
		"anthropic\tthe Anthropic Messages API",
	}, cobra.ShellCompDirectiveNoFileComp
}

// completeModels offers the configuration's models and the current model.
func completeModels(ios *iostreams.IOStreams) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cfg, err := loadConfig(ios, c.Flags())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		seen := map[string]bool{}
		add := func(name, desc string) {
			if seen[name] || !strings.HasPrefix(name, toComplete) {
				return
			}
			seen[name] = true
			out = append(out, shownCompletion(name, desc))
		}
		add(cfg.Model, "the current model")
		for _, m := range cfg.Models {
			add(m, "from the configuration's models")
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// completeProfiles offers the profiles of the configuration file.
func completeProfiles(ios *iostreams.IOStreams) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		path := configPath(ios)
		if path == "" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		f, err := config.ReadFile(path, ios.Getenv("HOME"))
		if err != nil || f == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, name := range f.ProfileOrder {
			if !strings.HasPrefix(name, toComplete) {
				continue
			}
			out = append(out, shownCompletion(name, f.ProfileSummary(name)))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeToolArg offers tool names for the first argument.
func completeToolArg(ios *iostreams.IOStreams) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return toolCompletions(ios, c, toComplete, nil), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeToolFlag offers the tool names not given yet for run --tool.
func completeToolFlag(ios *iostreams.IOStreams) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		given, _ := c.Flags().GetStringArray("tool")
		return toolCompletions(ios, c, toComplete, given), cobra.ShellCompDirectiveNoFileComp
	}
}

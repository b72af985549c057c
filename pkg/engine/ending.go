package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/internal/shell"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// GivenAs names a setting and its value the way they were given, for a
// message: the flag (or its default), the variable, the configuration
// file's line, or the transcript a resumed run took its context limit
// from (limitFrom). cfg may be nil: the flag then.
func GivenAs(cfg *config.Config, limitFrom, key, value string) string {
	if key == "context_limit" && limitFrom != "" {
		return fmt.Sprintf("%s %s (recorded in %s)", key, value, limitFrom)
	}
	flag := "--" + strings.ReplaceAll(key, "_", "-")
	if cfg == nil {
		return flag + " " + value
	}
	switch s := cfg.Source(key); s.Kind {
	case config.SourceEnv:
		return s.Name + "=" + value
	case config.SourceFile:
		return fmt.Sprintf("%s %s (%s:%d)", key, value, s.File, s.Line)
	}
	return flag + " " + value
}

// ExhaustedMessage says which budget ended a run, and how: maxSteps and
// l are the run's budgets, given names each as it was given (GivenAs).
func ExhaustedMessage(out *agent.Outcome, maxSteps int, l Limits, given func(key, value string) string) string {
	var spent int64
	for _, r := range out.Requests {
		spent += r.InputTokens + r.OutputTokens
	}
	var what string
	switch out.Exhausted {
	case agent.ExhaustedSteps:
		what = fmt.Sprintf("step budget exhausted after %d step%s (%s)", out.Steps, english.Plural(out.Steps, "", "s"), given("max_steps", strconv.Itoa(maxSteps)))
	case agent.ExhaustedTokens:
		what = fmt.Sprintf("token budget reached: %d tokens spent (%s)", spent, given("max_total_tokens", strconv.Itoa(l.MaxTotalTokens)))
	case agent.ExhaustedCost:
		what = fmt.Sprintf("cost budget reached: %s spent (%s)", runview.Dollars(out.Cost), given("max_cost", strconv.FormatFloat(l.MaxCost, 'f', -1, 64)))
	default:
		what = fmt.Sprintf("context limit reached: clearing old tool results cannot keep the requests under %s", given("context_limit", strconv.Itoa(l.ContextLimit)))
	}
	switch {
	case out.Answer != "":
		what += "; the last step was asked to answer without tools"
	case out.Estimate != "":
		what += ": " + out.Estimate
	}
	return what
}

// ResumeArgs are the flags of a command line that a run going on with its
// transcript needs given again: what the transcript does not carry on by
// itself. Its base URL is used only when the user names it, its tools
// folders only once trusted, and neither the MCP servers of --mcp-config
// nor the profile are recorded at all. Settings of the environment or
// the configuration file apply again as they are.
func ResumeArgs(cfg *config.Config) []string {
	var args []string
	if cfg.Source("profile").Kind == config.SourceFlag {
		args = append(args, "--profile", cfg.Profile)
	}
	if u, src := cfg.BaseURL(cfg.ProviderName()); src.Kind == config.SourceFlag {
		// A key or password in it is never shown: the command says
		// where the address goes, for the user to give it again.
		if transcript.RedactURL(u) != u {
			u = "URL"
		}
		args = append(args, "--base-url", u)
	}
	if cfg.Source("tools_dirs").Kind == config.SourceFlag {
		for _, d := range cfg.ToolsDirs {
			args = append(args, "--tools-dir", d)
		}
	}
	if cfg.Source("mcp_config").Kind == config.SourceFlag {
		for _, f := range cfg.MCPConfig {
			args = append(args, "--mcp-config", f)
		}
	}
	return args
}

// ResumeCommand is the command that goes on with the transcript at path,
// with the flags args, each word quoted for a shell.
func ResumeCommand(path string, args []string) string {
	words := []string{"agentloop", "replay", "--resume"}
	for _, a := range append(slices.Clone(args), path) {
		words = append(words, shell.Quote(a))
	}
	return strings.Join(words, " ")
}

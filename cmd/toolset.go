package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// toolSources says where a command's tools come from: script tools and
// MCP servers from the tools folders, MCP servers from {"mcpServers": …}
// files and from the configuration file.
type toolSources struct {
	dirs     []string // nil: the default folders
	explicit bool     // dirs were given with --tools-dir
	// mcpFiles are --mcp-config files (or the mcp_config setting's);
	// mcpServers the configuration file's mcp_servers.
	mcpFiles   []string
	mcpServers []*mcp.Config
}

// toolSet is every tool a command offers: the script tools of a registry
// and the tools of the MCP servers started.
type toolSet struct {
	reg *tools.Registry
	// servers are the servers declared and not disabled; mcp runs those
	// started (nil when none was).
	servers []*mcp.Config
	mcp     *mcp.Set
}

// loadDefinitions reads the tools folders and the servers' declarations,
// disabled ones included.
// Every problem is printed on stderr as file:line: message, and the error
// returned exits 1; a folder given that does not exist is a usage error
// (exit 2). A server declared in several places is the first one's: an
// --mcp-config file's, then a tools folder's (the folders in order), then
// the configuration file's; twice in one file or folder is a problem.
func loadDefinitions(ios *IOStreams, src toolSources) (*tools.Registry, []*mcp.Config, error) {
	dirs := toolsDirs(ios, src.dirs, src.explicit)
	for _, d := range dirs {
		if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, flagErrorf("--tools-dir %s: no such file or folder", d)
		}
	}
	var problems []error
	var servers []*mcp.Config
	for _, f := range src.mcpFiles {
		cfgs, probs := mcp.ReadJSON(f)
		servers = append(servers, cfgs...)
		for _, p := range probs {
			problems = append(problems, p)
		}
	}
	var fromDirs []*mcp.Config
	reg, err := tools.Load(dirs, tools.Options{Getenv: ios.Getenv, Servers: func(file string, root *yaml.Node) []*tools.LoadError {
		c, probs := mcp.DecodeFile(file, root)
		if c != nil {
			fromDirs = append(fromDirs, c)
		}
		var out []*tools.LoadError
		for _, p := range probs {
			out = append(out, &tools.LoadError{File: p.File, Line: p.Line, Msg: p.Msg})
		}
		return out
	}})
	if err != nil {
		problems = append(problems, unjoin(err)...)
	}
	problems = append(problems, sameLayer(dirs, fromDirs)...)
	servers = append(servers, fromDirs...)
	servers = append(servers, src.mcpServers...)
	if len(problems) > 0 {
		return nil, nil, reportProblems(ios, problems, "in the tool definitions")
	}
	var out []*mcp.Config
	seen := map[string]bool{}
	for _, c := range servers {
		if !seen[c.Name] {
			out = append(out, c)
		}
		seen[c.Name] = true
	}
	return reg, out, nil
}

// enabled are the servers not disabled.
func enabled(servers []*mcp.Config) []*mcp.Config {
	return slices.DeleteFunc(slices.Clone(servers), func(c *mcp.Config) bool { return c.Disabled })
}

// sameLayer reports a server name declared by two files of one folder.
func sameLayer(dirs []string, servers []*mcp.Config) []error {
	var out []error
	first := map[string]*mcp.Config{}
	for _, c := range servers {
		key := layerOf(dirs, c.File) + "\x00" + c.Name
		if prev, ok := first[key]; ok {
			out = append(out, &tools.LoadError{File: c.File, Line: c.Line, Msg: fmt.Sprintf("mcp server %q is declared twice in this folder (also at %s)", c.Name, prev.Where())})
			continue
		}
		first[key] = c
	}
	return out
}

// layerOf is the tools folder a file was read from.
func layerOf(dirs []string, file string) string {
	for _, d := range dirs {
		if d == file || filepath.Dir(file) == filepath.Clean(d) {
			return d
		}
	}
	return filepath.Dir(file)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// reportProblems prints problems one a line and returns the error that
// counts them (exit 1).
func reportProblems(ios *IOStreams, problems []error, where string) error {
	for _, e := range problems {
		fmt.Fprintln(ios.ErrOut, e)
	}
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d %s %s", len(problems), plural(len(problems), "problem", "problems"), where)}
}

// selection says which tools a command offers: only the named ones (when
// any are, or when restricted), none of the denied ones.
type selection struct {
	only, deny []string
	restricted bool
}

// wants reports whether a server could offer a tool the selection keeps:
// only then is it started.
func (s selection) wants(c *mcp.Config) bool {
	known, isKnown := c.Known()
	if len(s.only) > 0 || s.restricted {
		for _, n := range s.only {
			if c.MayOffer(n) && !slices.Contains(s.deny, n) {
				return true
			}
		}
		return false
	}
	if !isKnown {
		return true
	}
	for _, n := range known {
		if !slices.Contains(s.deny, n) {
			return true
		}
	}
	return false
}

// loadToolSet loads the tools of the sources and starts the servers that
// could offer a tool sel keeps, all at once. A server that does not start
// is an error naming it (exit 2), or for an optional one a warning; a name
// two sources offer is a problem (exit 1). Close the set when done.
func loadToolSet(ctx context.Context, ios *IOStreams, src toolSources, sel selection, progressf func(string, ...any)) (*toolSet, error) {
	reg, servers, err := loadDefinitions(ios, src)
	if err != nil {
		return nil, err
	}
	servers = enabled(servers)
	ts := &toolSet{reg: reg, servers: servers}
	var start []*mcp.Config
	for _, c := range servers {
		if sel.wants(c) {
			start = append(start, c)
		}
	}
	if len(start) == 0 {
		return ts, nil
	}
	ts.mcp = startServers(ctx, ios, start)
	var failed []error
	for _, st := range ts.mcp.Statuses() {
		c := st.Config
		switch {
		case st.Err == nil:
			if progressf != nil {
				progressf("mcp server %s: %s, %d tool%s, started in %s", c.Name, c.Shown(), len(st.Tools), plural(len(st.Tools), "", "s"), st.StartTime.Round(1e6))
			}
		case c.Optional:
			fmt.Fprintf(ios.ErrOut, "agentloop: warning: optional mcp server %s (%s) left out: %v\n", c.Name, c.Where(), st.Err)
		default:
			failed = append(failed, fmt.Errorf("mcp server %s (%s): %w", c.Name, c.Where(), st.Err))
		}
	}
	if len(failed) > 0 {
		ts.Close()
		if len(failed) == 1 {
			return nil, &ExitError{Code: ExitUsage, Err: failed[0]}
		}
		for _, e := range failed {
			fmt.Fprintln(ios.ErrOut, "agentloop:", e)
		}
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%d mcp servers did not start", len(failed))}
	}
	var conflicts []error
	for _, c := range ts.mcp.Conflicts() {
		conflicts = append(conflicts, errors.New(c))
	}
	for _, t := range ts.mcp.Tools() {
		if d, ok := reg.Lookup(t.Name); ok {
			c := serverOf(servers, t.Server)
			conflicts = append(conflicts, fmt.Errorf("%s: tool %s of mcp server %s has the name of the script tool at %s:%d; set a prefix: for the server",
				c.Where(), t.Name, t.Server, d.File, d.Line))
		}
	}
	if len(conflicts) > 0 {
		ts.Close()
		return nil, reportProblems(ios, conflicts, "in the tool definitions")
	}
	return ts, nil
}

func serverOf(servers []*mcp.Config, name string) *mcp.Config {
	for _, c := range servers {
		if c.Name == name {
			return c
		}
	}
	return &mcp.Config{Name: name}
}

// Close ends the servers.
func (t *toolSet) Close() {
	if t.mcp != nil {
		t.mcp.Close()
	}
}

// Names are the names of the tools offered, in order.
func (t *toolSet) Names() []string {
	names := t.reg.Names()
	if t.mcp != nil {
		for _, m := range t.mcp.Tools() {
			names = append(names, m.Name)
		}
	}
	slices.Sort(names)
	return names
}

// Has reports whether a tool is offered.
func (t *toolSet) Has(name string) bool {
	if t.reg.Has(name) {
		return true
	}
	if t.mcp != nil {
		_, ok := t.mcp.Lookup(name)
		return ok
	}
	return false
}

// mayHave reports whether a name is one a command line may name: a tool
// offered, or one a server that was not started could offer.
func (t *toolSet) mayHave(name string) bool {
	if t.Has(name) {
		return true
	}
	for _, c := range t.servers {
		if c.MayOffer(name) && (t.mcp == nil || !t.started(c.Name)) {
			return true
		}
	}
	return false
}

func (t *toolSet) started(server string) bool {
	for _, st := range t.mcp.Statuses() {
		if st.Config.Name == server && st.Err == nil {
			return true
		}
	}
	return false
}

// unknownText says that a tool does not exist and what exists instead.
func (t *toolSet) unknownText(name string) string {
	names := t.Names()
	msg := fmt.Sprintf("unknown tool %q", name)
	if n := suggest.Nearest(name, names); n != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", n)
	}
	if len(names) == 0 {
		return msg + " (no tools are loaded)"
	}
	return msg + " (available: " + strings.Join(names, ", ") + ")"
}

// keep leaves on offer only the tools of sel: the --tool names (each must
// be a tool) less the --deny ones.
func (t *toolSet) keep(sel selection) error {
	if len(sel.only) > 0 {
		var unknown []string
		for _, n := range sel.only {
			if !t.Has(n) {
				unknown = append(unknown, t.unknownText(n))
			}
		}
		if len(unknown) > 0 {
			return errors.New(strings.Join(unknown, "; "))
		}
		reg, err := t.reg.Subset(slices.DeleteFunc(slices.Clone(sel.only), func(n string) bool { return !t.reg.Has(n) }))
		if err != nil {
			return err
		}
		t.reg = reg
	}
	t.reg = t.reg.Without(sel.deny...)
	if t.mcp != nil {
		t.mcp.Keep(func(n string) bool {
			return (len(sel.only) == 0 || slices.Contains(sel.only, n)) && !slices.Contains(sel.deny, n)
		})
	}
	return nil
}

// confirms reports whether a call of the tool asks a person first, and
// whether the tool is offered.
func (t *toolSet) confirms(name string) (confirm, known bool) {
	if d, ok := t.reg.Lookup(name); ok {
		return d.Confirm, true
	}
	if t.mcp != nil {
		if m, ok := t.mcp.Lookup(name); ok {
			return m.Confirm, true
		}
	}
	return false, false
}

// CheckArgs checks a call's arguments against its tool's schema.
func (t *toolSet) CheckArgs(name string, args []byte) error {
	if t.reg.Has(name) || t.mcp == nil {
		return t.reg.CheckArgs(name, args)
	}
	return t.mcp.CheckArgs(name, args)
}

// Call runs a tool; an unknown one is a result naming the tools there are.
func (t *toolSet) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	if t.mcp != nil {
		if _, ok := t.mcp.Lookup(name); ok {
			return t.mcp.Call(ctx, name, callID, args)
		}
	}
	if !t.reg.Has(name) {
		return agent.ToolResult{IsError: true, Kind: transcript.KindUnknownTool, ExitCode: -1, Content: t.unknownText(name)}
	}
	return toolResult(t.reg.Call(ctx, name, callID, args))
}

// Specs are the tools as the model is offered them, in name order.
func (t *toolSet) Specs() []agent.ToolSpec {
	specs := toolSpecs(t.reg.Definitions())
	if t.mcp != nil {
		for _, m := range t.mcp.Tools() {
			specs = append(specs, agent.ToolSpec{Name: m.Name, Description: m.Description, Parameters: m.InputSchema})
		}
	}
	slices.SortFunc(specs, func(a, b agent.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	return specs
}

// toolDefs are the tools in a provider's wire form. A tool the API would
// refuse is a problem naming where the tool comes from.
func (t *toolSet) toolDefs(d agent.Dialect) ([]agent.Message, error) {
	defs, err := d.ToolDefs(t.Specs())
	var de *agent.ToolDefError
	if !errors.As(err, &de) {
		return defs, err
	}
	where := "script tool"
	if def, ok := t.reg.Lookup(de.Tool); ok {
		where = fmt.Sprintf("%s:%d: script tool", def.File, def.Line)
	} else if t.mcp != nil {
		if m, ok := t.mcp.Lookup(de.Tool); ok {
			c := serverOf(t.servers, m.Server)
			where = fmt.Sprintf("%s: mcp server %s: tool %s (%s on the server)", c.Where(), m.Server, m.Name, m.Original)
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s: %s; leave it out with the server's tools: list or --deny %s", where, de.Problem, m.Name)}
		}
	}
	return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s %s: %s", where, de.Tool, de.Problem)}
}

// secrets is the redactor of a command that runs tools: the provider keys
// and the servers' secrets.
func (t *toolSet) secrets(ios *IOStreams) *transcript.Redactor {
	var extra []string
	if t.mcp != nil {
		extra = t.mcp.Secrets()
	}
	return secretsWith(ios, extra...)
}

// header describes the servers for a transcript header.
func (t *toolSet) header() []transcript.MCPServer {
	if t.mcp == nil {
		return nil
	}
	return t.mcp.Header()
}

// origin says where a tool comes from, as a result records it: "mcp" and
// the server, or nothing for a script tool.
func (t *toolSet) origin(name string) (source, server string) {
	if t.mcp != nil {
		if m, ok := t.mcp.Lookup(name); ok {
			return "mcp", m.Server
		}
	}
	return "", ""
}

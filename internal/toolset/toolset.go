// Package toolset is every tool a command offers under one set of names:
// the script tools of the tools folders (pkg/tools) and the tools of the
// MCP servers declared in those folders, in {"mcpServers": …} files and in
// the configuration (pkg/mcp). It reads the declarations, decides which
// servers a run needs, and answers a call whichever source the tool is
// from. Printing and exit codes are the caller's.
package toolset

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Sources say where the tools come from.
type Sources struct {
	// Dirs are the tools folders (or files), first first.
	Dirs []string
	// MCPFiles are {"mcpServers": …} files; MCPServers the configuration
	// file's mcp_servers.
	MCPFiles   []string
	MCPServers []*mcp.Config
	// UserFiles says that the configuration file named MCPFiles (its
	// mcp_config), not a flag or the environment.
	UserFiles bool
	// Getenv is agentloop's environment.
	Getenv func(string) string
}

// Declared reads the tools folders and the servers' declarations,
// disabled servers included. Every problem found is returned, each naming
// its file and line. A server declared in several places is the first
// one's: an MCPFiles file's, then a tools folder's (the folders in order),
// then the configuration's; twice in one file or folder is a problem.
//
// The servers of the user's configuration (MCPServers, and MCPFiles when
// UserFiles) are optional unless they say otherwise: they are offered in
// every folder, and one that does not start should not stop every run
// there. A project's (a tools folder's) and those a command line or the
// environment names are required unless they say optional: true.
func Declared(src Sources) (*tools.Registry, []*mcp.Config, []error) {
	var problems []error
	var servers []*mcp.Config
	for _, f := range src.MCPFiles {
		cfgs, probs := mcp.ReadJSON(f)
		if src.UserFiles {
			userLevel(cfgs)
		}
		servers = append(servers, cfgs...)
		for _, p := range probs {
			problems = append(problems, p)
		}
	}
	var fromDirs []*mcp.Config
	reg, err := tools.Load(src.Dirs, tools.Options{Getenv: src.Getenv, Servers: func(file string, root *yaml.Node) []*tools.LoadError {
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
	problems = append(problems, sameLayer(src.Dirs, fromDirs)...)
	servers = append(servers, fromDirs...)
	userLevel(src.MCPServers)
	servers = append(servers, src.MCPServers...)
	if len(problems) > 0 {
		return nil, nil, problems
	}
	return reg, firstOfEach(servers), nil
}

// firstOfEach keeps the first server of each name.
func firstOfEach(servers []*mcp.Config) []*mcp.Config {
	var out []*mcp.Config
	seen := map[string]bool{}
	for _, c := range servers {
		if !seen[c.Name] {
			out = append(out, c)
		}
		seen[c.Name] = true
	}
	return out
}

// userLevel makes the servers of the user's configuration optional unless
// they say otherwise.
func userLevel(servers []*mcp.Config) {
	for _, c := range servers {
		c.OptionalUnlessSaid()
	}
}

// Quiet reads the servers Declared does, leaving out what has problems:
// those declared without mistakes, the first of each name, not disabled.
// Shell completion offers their tools.
func Quiet(src Sources) []*mcp.Config {
	var servers []*mcp.Config
	for _, f := range src.MCPFiles {
		cfgs, _ := mcp.ReadJSON(f)
		servers = append(servers, cfgs...)
	}
	_, _ = tools.Load(src.Dirs, tools.Options{Getenv: src.Getenv, Servers: func(file string, root *yaml.Node) []*tools.LoadError {
		if c, _ := mcp.DecodeFile(file, root); c != nil {
			servers = append(servers, c)
		}
		return nil
	}})
	return Enabled(firstOfEach(append(servers, src.MCPServers...)))
}

// Enabled are the servers not disabled.
func Enabled(servers []*mcp.Config) []*mcp.Config {
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

// Selection says which tools a command offers: only the named ones (when
// any are, or when Restricted), none of the denied ones.
type Selection struct {
	Only, Deny []string
	Restricted bool
	// Known, when set, gives the tools a server offers as far as they are
	// known without starting it (its tools: list, or those it offered when
	// it last started: mcp.Names.Known). Of the servers that could offer an
	// Only name, those known to offer it are then started; when none is,
	// those whose tools are not known; when there is none of those either,
	// all that could (a server may have gained a tool since): tools call
	// NAME starts the one server that has NAME.
	Known func(c *mcp.Config) ([]string, bool)
}

// servers are those of all that the selection needs started, in order;
// script names a script tool, which, with Known, needs no server.
func (s Selection) servers(all []*mcp.Config, script func(string) bool) []*mcp.Config {
	var want []*mcp.Config
	for _, c := range all {
		if s.Wants(c) {
			want = append(want, c)
		}
	}
	if s.Known == nil || len(s.Only) == 0 {
		return want
	}
	pick := map[*mcp.Config]bool{}
	for _, n := range s.Only {
		if script(n) {
			continue
		}
		var could, has, unknown []*mcp.Config
		for _, c := range want {
			if !c.MayOffer(n) || slices.Contains(s.Deny, n) {
				continue
			}
			could = append(could, c)
			switch names, ok := s.Known(c); {
			case !ok:
				unknown = append(unknown, c)
			case slices.Contains(names, n):
				has = append(has, c)
			}
		}
		start := has
		if len(start) == 0 {
			start = unknown
		}
		if len(start) == 0 {
			start = could
		}
		for _, c := range start {
			pick[c] = true
		}
	}
	return slices.DeleteFunc(want, func(c *mcp.Config) bool { return !pick[c] })
}

// Wants reports whether a server could offer a tool the selection keeps:
// only then is it started.
func (s Selection) Wants(c *mcp.Config) bool {
	known, isKnown := c.Known()
	if len(s.Only) > 0 || s.Restricted {
		for _, n := range s.Only {
			if c.MayOffer(n) && !slices.Contains(s.Deny, n) {
				return true
			}
		}
		return false
	}
	if !isKnown {
		return true
	}
	for _, n := range known {
		if !slices.Contains(s.Deny, n) {
			return true
		}
	}
	return false
}

// Set is every tool a command offers.
type Set struct {
	Reg *tools.Registry
	// Servers are the servers declared and not disabled; MCP runs those
	// started (nil when none was).
	Servers []*mcp.Config
	MCP     *mcp.Set
	// known is the selection's Known, for Elsewhere.
	known func(*mcp.Config) ([]string, bool)
}

// Start starts the servers the selection needs, all at once (see
// mcp.Start); their statuses say how each start went.
func (t *Set) Start(ctx context.Context, sel Selection, opts mcp.Options) {
	t.known = sel.Known
	if start := sel.servers(t.Servers, t.Reg.Has); len(start) > 0 {
		t.MCP = mcp.Start(ctx, start, opts)
	}
}

// Elsewhere are the tools of the servers not started, as far as the
// selection's Known knows them, in order: a command that started only the
// server it needed still suggests them for a name that is no tool, and
// places a definition among them (ToolDefsAmong).
func (t *Set) Elsewhere() []string {
	if t.known == nil {
		return nil
	}
	var out []string
	for _, c := range t.Servers {
		if t.MCP != nil && slices.ContainsFunc(t.MCP.Statuses(), func(st mcp.Status) bool { return st.Config == c }) {
			continue
		}
		names, _ := t.known(c)
		for _, n := range names {
			if !t.Has(n) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Conflicts are the names two sources offer, each a problem naming both.
func (t *Set) Conflicts() []error {
	if t.MCP == nil {
		return nil
	}
	var out []error
	for _, c := range t.MCP.Conflicts() {
		out = append(out, errors.New(c))
	}
	for _, m := range t.MCP.Tools() {
		if d, ok := t.Reg.Lookup(m.Name); ok {
			out = append(out, fmt.Errorf("%s: tool %s of mcp server %s has the name of the script tool at %s:%d; set a prefix: for the server",
				t.Server(m.Server).Where(), m.Name, m.Server, d.File, d.Line))
		}
	}
	return out
}

// Server is the declaration of a server by name.
func (t *Set) Server(name string) *mcp.Config {
	for _, c := range t.Servers {
		if c.Name == name {
			return c
		}
	}
	return &mcp.Config{Name: name}
}

// Close ends the servers.
func (t *Set) Close() {
	if t.MCP != nil {
		t.MCP.Close()
	}
}

// Names are the names of the tools offered, in order.
func (t *Set) Names() []string {
	names := t.Reg.Names()
	if t.MCP != nil {
		for _, m := range t.MCP.Tools() {
			names = append(names, m.Name)
		}
	}
	slices.Sort(names)
	return names
}

// Has reports whether a tool is offered.
func (t *Set) Has(name string) bool {
	if t.Reg.Has(name) {
		return true
	}
	if t.MCP != nil {
		_, ok := t.MCP.Lookup(name)
		return ok
	}
	return false
}

// MayHave reports whether a name is one a command line may name: a tool
// offered, or one a server that was not started could offer.
func (t *Set) MayHave(name string) bool {
	if t.Has(name) {
		return true
	}
	for _, c := range t.Servers {
		if c.MayOffer(name) && !t.started(c.Name) {
			return true
		}
	}
	return false
}

func (t *Set) started(server string) bool {
	if t.MCP == nil {
		return false
	}
	for _, st := range t.MCP.Statuses() {
		if st.Config.Name == server && st.Err == nil {
			return true
		}
	}
	return false
}

// UnknownText says that a tool does not exist and what exists instead.
func (t *Set) UnknownText(name string) string {
	names := t.Names()
	if more := t.Elsewhere(); len(more) > 0 {
		names = append(names, more...)
		slices.Sort(names)
	}
	msg := fmt.Sprintf("unknown tool %q", name)
	// No tool name holds a comma: "a,b" is a list given where one name
	// goes (--tool a,b).
	parts := strings.Split(name, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) > 1 && !slices.ContainsFunc(parts, func(p string) bool { return !t.Has(p) }) {
		return msg + ": one name a value; repeat the flag for each of " + strings.Join(parts, ", ")
	}
	if n := suggest.Nearest(name, names); n != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", n)
	}
	if len(names) == 0 {
		return msg + " (no tools are loaded)"
	}
	return msg + " (available: " + strings.Join(names, ", ") + ")"
}

// Keep leaves on offer only the tools of sel: the Only names (each must
// be a tool; none at all when Restricted and Only is empty) less the Deny
// ones.
func (t *Set) Keep(sel Selection) error {
	only := len(sel.Only) > 0 || sel.Restricted
	if only {
		var unknown []string
		for _, n := range sel.Only {
			if !t.Has(n) {
				unknown = append(unknown, t.UnknownText(n))
			}
		}
		if len(unknown) > 0 {
			return errors.New(strings.Join(unknown, "; "))
		}
		reg, err := t.Reg.Subset(slices.DeleteFunc(slices.Clone(sel.Only), func(n string) bool { return !t.Reg.Has(n) }))
		if err != nil {
			return err
		}
		t.Reg = reg
	}
	t.Reg = t.Reg.Without(sel.Deny...)
	if t.MCP != nil {
		t.MCP.Keep(func(n string) bool {
			return (!only || slices.Contains(sel.Only, n)) && !slices.Contains(sel.Deny, n)
		})
	}
	return nil
}

// Confirms reports whether a call of the tool asks a person first, and
// whether the tool is offered.
func (t *Set) Confirms(name string) (confirm, known bool) {
	if d, ok := t.Reg.Lookup(name); ok {
		return d.Confirm, true
	}
	if t.MCP != nil {
		if m, ok := t.MCP.Lookup(name); ok {
			return m.Confirm, true
		}
	}
	return false, false
}

// Origin says where a tool comes from, as a result records it: "mcp" and
// the server, or nothing for a script tool.
func (t *Set) Origin(name string) (source, server string) {
	if t.MCP != nil {
		if m, ok := t.MCP.Lookup(name); ok {
			return "mcp", m.Server
		}
	}
	return "", ""
}

// CheckArgs checks a call's arguments against its tool's schema.
func (t *Set) CheckArgs(name string, args []byte) error {
	if t.Reg.Has(name) || t.MCP == nil {
		return t.Reg.CheckArgs(name, args)
	}
	return t.MCP.CheckArgs(name, args)
}

// Call runs a tool; an unknown one is a result naming the tools there are.
func (t *Set) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	if t.MCP != nil {
		if _, ok := t.MCP.Lookup(name); ok {
			return t.MCP.Call(ctx, name, callID, args)
		}
	}
	if !t.Reg.Has(name) {
		return agent.ToolResult{IsError: true, Kind: wire.KindUnknownTool, ExitCode: -1, Content: t.UnknownText(name)}
	}
	return Result(t.Reg.Call(ctx, name, callID, args))
}

// Result is a script tool's result as the loop takes it.
func Result(r tools.Result) agent.ToolResult {
	res := agent.ToolResult{Content: r.Content, IsError: r.IsError, Kind: r.Kind, ExitCode: r.ExitCode,
		Duration: r.Duration, Truncated: r.Truncated}
	for _, im := range r.Images {
		res.Images = append(res.Images, agent.Image{MIMEType: im.MIMEType, Data: im.Data})
	}
	return res
}

// Specs are the tools as the model is offered them, in name order.
func (t *Set) Specs() []agent.ToolSpec {
	defs := t.Reg.Definitions()
	specs := make([]agent.ToolSpec, 0, len(defs))
	for _, d := range defs {
		specs = append(specs, agent.ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters, Strict: d.Strict})
	}
	if t.MCP != nil {
		for _, m := range t.MCP.Tools() {
			specs = append(specs, agent.ToolSpec{Name: m.Name, Description: m.Description, Parameters: m.InputSchema})
		}
	}
	slices.SortFunc(specs, func(a, b agent.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	return specs
}

// ToolDefs are the tools in a provider's wire form. A tool the API would
// refuse is an error naming where the tool comes from, and for an MCP
// tool how to leave it out.
func (t *Set) ToolDefs(d agent.Dialect) ([]agent.Message, error) {
	return t.ToolDefsAmong(d, nil)
}

// ToolDefsAmong are the definitions of the set's tools (as ToolDefs) made
// as a run makes them when the tools named in others, of servers that were
// not started, are offered too: a definition whose place among all of them
// counts (Anthropic's last carries the cache mark) has the place it has in
// the run. Only the set's own are returned, in the order of Specs.
func (t *Set) ToolDefsAmong(d agent.Dialect, others []string) ([]agent.Message, error) {
	specs := t.Specs()
	own := len(specs)
	for _, n := range others {
		if !t.Has(n) && !slices.ContainsFunc(specs, func(s agent.ToolSpec) bool { return s.Name == n }) {
			// Stands in for the tool at its place; its definition is not
			// returned.
			specs = append(specs, agent.ToolSpec{Name: n, Parameters: []byte(`{"type":"object","properties":{}}`)})
		}
	}
	if len(specs) > own {
		slices.SortFunc(specs, func(a, b agent.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
		all, err := d.ToolDefs(specs)
		if err == nil {
			var defs []agent.Message
			for i, s := range specs {
				if t.Has(s.Name) {
					defs = append(defs, all[i])
				}
			}
			return defs, nil
		}
	}
	defs, err := d.ToolDefs(t.Specs())
	var de *agent.ToolDefError
	if !errors.As(err, &de) {
		return defs, err
	}
	if def, ok := t.Reg.Lookup(de.Tool); ok {
		return nil, fmt.Errorf("%s:%d: script tool %s: %s", def.File, def.Line, de.Tool, de.Problem)
	}
	if t.MCP != nil {
		if m, ok := t.MCP.Lookup(de.Tool); ok {
			return nil, fmt.Errorf("%s: mcp server %s: tool %s (%s on the server): %s; leave it out with the server's tools: list or --deny %s",
				t.Server(m.Server).Where(), m.Server, m.Name, m.Original, de.Problem, m.Name)
		}
	}
	return nil, err
}

// Secrets are the values the servers were given.
func (t *Set) Secrets() []string {
	if t.MCP == nil {
		return nil
	}
	return t.MCP.Secrets()
}

// Header describes the servers for a transcript header.
func (t *Set) Header() []transcript.MCPServer {
	if t.MCP == nil {
		return nil
	}
	return t.MCP.Header()
}

// Checker is what validate checks calls against, starting no server: a
// script tool's arguments against its schema; a name a server could offer
// is known, unchecked, since its schema is the server's to give.
type Checker struct {
	Reg     *tools.Registry
	Servers []*mcp.Config
}

// Has reports whether a tool of that name is loaded or could be offered.
func (c *Checker) Has(name string) bool {
	if c.Reg.Has(name) {
		return true
	}
	for _, s := range c.Servers {
		if s.MayOffer(name) {
			return true
		}
	}
	return false
}

// CheckArgs checks a script tool's arguments; an MCP tool's pass.
func (c *Checker) CheckArgs(name string, args []byte) error {
	if c.Reg.Has(name) {
		return c.Reg.CheckArgs(name, args)
	}
	return nil
}

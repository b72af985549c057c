package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/schemacheck"
	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/pkg/wire"
)

// tool is a loaded definition with what it takes to check and run a call.
type tool struct {
	def        Definition
	nameLine   int
	validator  *schemacheck.Schema
	stripNulls bool // strict form: null stands for an absent optional property
	layer      int  // the index in Load's paths of the path it came from
}

// Registry is a set of loaded tools. It is safe for concurrent use.
type Registry struct {
	tools map[string]*tool
	names []string
	opts  Options
	// sem holds a token for each running tool process. Registries made by
	// Subset and Without share it with the one they came from.
	sem chan struct{}
}

func newRegistry(list []*tool, opts Options) *Registry {
	r := &Registry{tools: make(map[string]*tool, len(list)), opts: opts, sem: make(chan struct{}, opts.MaxProcs)}
	for _, t := range list {
		r.tools[t.def.Name] = t
	}
	r.names = slices.Sorted(maps.Keys(r.tools))
	return r
}

// Definitions returns the tools in name order. The Definitions are copies.
func (r *Registry) Definitions() []*Definition {
	out := make([]*Definition, len(r.names))
	for i, n := range r.names {
		out[i] = r.tools[n].def.clone()
	}
	return out
}

// Lookup returns a copy of the named tool's definition.
func (r *Registry) Lookup(name string) (*Definition, bool) {
	t, ok := r.tools[name]
	if !ok {
		return nil, false
	}
	return t.def.clone(), true
}

// Has reports whether the named tool is loaded.
func (r *Registry) Has(name string) bool {
	_, ok := r.tools[name]
	return ok
}

// Names returns the tool names in order.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Len is the number of tools.
func (r *Registry) Len() int { return len(r.names) }

// Subset returns a registry of only the named tools. An unknown name is an
// error that lists the tools there are.
func (r *Registry) Subset(names []string) (*Registry, error) {
	var unknown []string
	keep := map[string]*tool{}
	for _, n := range names {
		t, ok := r.tools[n]
		if !ok {
			unknown = append(unknown, r.unknownText(n))
			continue
		}
		keep[n] = t
	}
	if len(unknown) > 0 {
		return nil, errors.New(strings.Join(unknown, "; "))
	}
	return r.derive(keep), nil
}

// Without returns a registry of all tools but the named ones; names that
// are not loaded are ignored.
func (r *Registry) Without(names ...string) *Registry {
	keep := maps.Clone(r.tools)
	for _, n := range names {
		delete(keep, n)
	}
	return r.derive(keep)
}

func (r *Registry) derive(keep map[string]*tool) *Registry {
	return &Registry{tools: keep, names: slices.Sorted(maps.Keys(keep)), opts: r.opts, sem: r.sem}
}

// unknownText says that a tool does not exist and what exists instead.
func (r *Registry) unknownText(name string) string {
	msg := fmt.Sprintf("unknown tool %q", name)
	if n := suggest.Nearest(name, r.names); n != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", n)
	}
	if len(r.names) == 0 {
		return msg + " (no tools are loaded)"
	}
	return msg + " (available: " + strings.Join(r.names, ", ") + ")"
}

// CheckArgs checks a call's arguments against the tool's schema without
// running it. The error text is the one Call would give the model.
func (r *Registry) CheckArgs(name string, args []byte) error {
	t, ok := r.tools[name]
	if !ok {
		return errors.New(r.unknownText(name))
	}
	_, err := t.prepare(args)
	return err
}

// Call runs the named tool with the arguments JSON of one call and returns
// its Result. It never panics and never fails: every failure, the tool's or
// the call's, is a Result with IsError set.
func (r *Registry) Call(ctx context.Context, name, callID string, args []byte) (res Result) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res = failure(wire.KindStart, fmt.Sprintf("internal error running tool %s: %v", name, p))
		}
		res.Duration = time.Since(start)
	}()
	t, ok := r.tools[name]
	if !ok {
		return failure(wire.KindUnknownTool, r.unknownText(name))
	}
	p, err := t.prepare(args)
	if err != nil {
		return failure(wire.KindBadArguments, err.Error())
	}
	return r.exec(ctx, t, callID, p)
}

// Package declare reads the sandbox: block of a tool or MCP server
// declaration. It is apart from package sandbox so that the launcher,
// which runs before every sandboxed tool, does not initialise a YAML
// parser it has no use for.
package declare

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/yamlpos"
)

// Keys are the keys of a sandbox: block.
var Keys = []string{"mode", "write", "read", "network"}

// Problem is a mistake in a block, at a line of its file.
type Problem struct {
	Line int
	Msg  string
}

// Decode reads the block n of a declaration in a file of folder dir:
// paths relative to dir, ~ for home. Every mistake is a Problem; the block
// is nil when there is any.
func Decode(n *yaml.Node, dir, home string) (*sandbox.Block, []Problem) {
	d := &decoder{dir: dir, home: home}
	b := d.block(n)
	if len(d.problems) > 0 {
		return nil, d.problems
	}
	return b, nil
}

type decoder struct {
	dir, home string
	problems  []Problem
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.problems = append(d.problems, Problem{Line: n.Line, Msg: "sandbox: " + fmt.Sprintf(format, args...)})
}

func (d *decoder) block(n *yaml.Node) *sandbox.Block {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "want a mapping of mode, write, read and network, got %s", yamlpos.KindName(n))
		return nil
	}
	b := &sandbox.Block{}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode:
			d.errorf(k, "a key must be a plain word, got %s", yamlpos.KindName(k))
			continue
		case seen[k.Value]:
			d.errorf(k, "'%s' given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "mode":
			if v.Kind != yaml.ScalarNode || yamlpos.IsNull(v) {
				d.errorf(v, "mode: want off, read-only or workspace-write, got %s", yamlpos.KindName(v))
				continue
			}
			m, err := sandbox.ParseMode(v.Value)
			if err != nil {
				d.errorf(v, "mode: %v", err)
			}
			b.Mode = m
		case "write":
			b.Write = d.paths(k.Value, v)
		case "read":
			b.Read = d.paths(k.Value, v)
			if b.Read == nil {
				b.Read = []string{}
			}
		case "network":
			b.Network = d.network(v)
		default:
			d.errorf(k, "unknown key '%s'%s", k.Value, suggest.DidYouMean(k.Value, Keys))
		}
	}
	return b
}

// paths reads a list of paths, made absolute.
func (d *decoder) paths(key string, n *yaml.Node) []string {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s: want a list of paths, got %s", key, yamlpos.KindName(n))
		return nil
	}
	var out []string
	for _, p := range n.Content {
		if p.Kind != yaml.ScalarNode || yamlpos.IsNull(p) || p.Value == "" {
			d.errorf(p, "%s: want a path, got %s", key, yamlpos.KindName(p))
			continue
		}
		path, err := d.abs(p.Value)
		if err != nil {
			d.errorf(p, "%s: %v", key, err)
			continue
		}
		if !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	return out
}

// abs makes a path of a block absolute: ~ is the home folder, and a
// relative path is relative to the declaration's folder.
func (d *decoder) abs(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if !filepath.IsAbs(d.home) {
			return "", fmt.Errorf("%s: HOME is not set to an absolute path", p)
		}
		return filepath.Join(d.home, p[1:]), nil
	}
	if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%s: only ~ and ~/ are expanded, not ~user", p)
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Abs(filepath.Join(d.dir, p))
}

// network reads true, false or a list of ports.
func (d *decoder) network(n *yaml.Node) *sandbox.Network {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		var b bool
		if err := n.Decode(&b); err == nil {
			return &sandbox.Network{Any: b}
		}
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "network: want true, false or a list of TCP ports, got %s", yamlpos.KindName(n))
		return nil
	}
	net := &sandbox.Network{Ports: []uint16{}}
	for _, p := range n.Content {
		port, err := strconv.ParseUint(p.Value, 10, 16)
		if p.Kind != yaml.ScalarNode || p.Tag != "!!int" || err != nil || port == 0 {
			d.errorf(p, "network: %q is not a TCP port (1 to 65535)", p.Value)
			continue
		}
		if !slices.Contains(net.Ports, uint16(port)) {
			net.Ports = append(net.Ports, uint16(port))
		}
	}
	return net
}

package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/yamlpos"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// maxFileSize bounds the configuration file: anything larger is not one.
const maxFileSize = 1 << 20

// File is the configuration file, parsed and checked.
type File struct {
	Path string
	// Top holds the settings of the top level, by key name.
	Top map[string]Value
	// Profiles holds the profiles by name; ProfileOrder names them in
	// file order.
	Profiles     map[string]*Profile
	ProfileOrder []string
	// Prices are the prices: table, by model.
	Prices map[string]Price
}

// Profile is a named set of settings.
type Profile struct {
	Name   string
	Line   int
	Values map[string]Value
}

// Value is a setting's value in the file and the line of its key.
type Value struct {
	Value any // string, int, time.Duration, []string or []*mcp.Config, by the key's Kind
	Line  int
}

// Problems are the problems found in a configuration, each naming its
// file and line, or its variable.
type Problems []string

func (p Problems) Error() string { return strings.Join(p, "\n") }

// ReadFile reads and checks the configuration file; a file that does not
// exist is no configuration (nil, nil). home expands a leading ~ in paths.
// The problems of a file that is read are Problems.
func ReadFile(path, home string) (*File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("read configuration: %s is a folder, not a file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d KiB: not a configuration file", path, maxFileSize>>10)
	}
	cf, probs := ParseFile(path, data, home)
	if len(probs) > 0 {
		return nil, probs
	}
	return cf, nil
}

// ParseFile parses the configuration file's bytes. Every problem is
// returned, each as file:line: message, the lines being those the tool
// loader would give for the same YAML.
func ParseFile(path string, data []byte, home string) (*File, Problems) {
	p := &fileParser{path: path, home: home}
	cf := &File{Path: path, Top: map[string]Value{}, Profiles: map[string]*Profile{}}
	doc, extra, err := yamlpos.Decode(data)
	var syntax *yamlpos.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return nil, Problems{fmt.Sprintf("%s:%d: %s", path, syntax.Line, syntax.Problem)}
	case err != nil:
		return nil, Problems{fmt.Sprintf("%s: %v", path, err)}
	case doc == nil:
		return cf, nil // empty, or comments only
	case extra != nil:
		p.errorf(extra, "", "more than one YAML document: the configuration is one mapping; remove the '---' and what follows, or merge it")
		return nil, p.probs
	}
	root := yamlpos.Deref(yamlpos.Root(doc))
	if yamlpos.IsNull(root) {
		return cf, nil
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "", "the file must be a mapping of keys to values, e.g. model: gpt-4o-mini")
		return nil, p.probs
	}
	cf.Top = p.settings(root, "", func(k, v *yaml.Node) bool {
		switch k.Value {
		case "profiles":
			p.profiles(v, cf)
		case "prices":
			cf.Prices = p.prices(v)
		default:
			return false
		}
		return true
	})
	if len(p.probs) > 0 {
		return nil, p.probs
	}
	return cf, nil
}

type fileParser struct {
	path  string
	home  string
	probs Problems
}

func (p *fileParser) errorf(n *yaml.Node, profile, format string, args ...any) {
	where := ""
	if profile != "" {
		where = "profile '" + profile + "': "
	}
	p.probs = append(p.probs, fmt.Sprintf("%s:%d: %s%s", p.path, n.Line, where, fmt.Sprintf(format, args...)))
}

// settings reads the keys of a mapping: the top level (profile "") or a
// profile. extra handles keys only the top level has.
func (p *fileParser) settings(m *yaml.Node, profile string, extra func(k, v *yaml.Node) bool) map[string]Value {
	out := map[string]Value{}
	seen := map[string]int{}
	known := make([]string, 0, len(Keys)+1)
	for _, k := range Keys {
		known = append(known, k.Name)
	}
	if extra != nil {
		known = append(known, "profiles", "prices")
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := m.Content[i], yamlpos.Deref(m.Content[i+1])
		name := kn.Value
		if first, dup := seen[name]; dup {
			p.errorf(kn, profile, "duplicate key '%s' (first at line %d)", name, first)
			continue
		}
		seen[name] = kn.Line
		if extra != nil && extra(kn, vn) {
			continue
		}
		k, ok := Lookup(name)
		switch {
		case ok && k.Kind == Servers:
			servers, probs := mcp.DecodeServers(p.path, vn)
			for _, pr := range probs {
				p.probs = append(p.probs, pr.Error())
			}
			if len(probs) == 0 {
				out[name] = Value{servers, kn.Line}
			}
		case ok:
			v, problem := p.value(k, vn)
			if problem == "" && k.Check != nil {
				if problem = k.Check(v); problem != "" {
					problem = fmt.Sprintf("%s %s: %s", name, shownValue(v), problem)
				}
			}
			if problem != "" {
				p.errorf(vn, profile, "%s", problem)
				continue
			}
			out[name] = Value{v, kn.Line}
		case isSecretKey(name):
			p.errorf(kn, profile, "%s: API keys are never read from the configuration file; set OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment", name)
		case name == "profiles":
			p.errorf(kn, profile, "profiles cannot be nested: define each profile at the top level's profiles:")
		case name == "prices":
			p.errorf(kn, profile, "prices belong to the top level: a model costs the same whichever profile asks it")
		case kn.Tag == "!!merge":
			p.errorf(kn, profile, "YAML merge keys (<<) are not read in the configuration; write the settings out (a profile takes what it does not set from the top level)")
		default:
			p.errorf(kn, profile, "unknown key '%s'%s", name, suggest.DidYouMean(name, known))
		}
	}
	return out
}

// profiles reads the profiles: mapping.
func (p *fileParser) profiles(v *yaml.Node, cf *File) {
	if yamlpos.IsNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(v, "", "profiles: want a mapping of profile names to settings, e.g. profiles: {ollama: {model: llama3.2}}")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], yamlpos.Deref(v.Content[i+1])
		name := kn.Value
		if name == "" || kn.Kind != yaml.ScalarNode {
			p.errorf(kn, "", "profiles: a profile needs a name")
			continue
		}
		if prev, dup := cf.Profiles[name]; dup {
			p.errorf(kn, "", "duplicate profile '%s' (first at line %d)", name, prev.Line)
			continue
		}
		prof := &Profile{Name: name, Line: kn.Line, Values: map[string]Value{}}
		switch {
		case vn.Kind == yaml.MappingNode:
			prof.Values = p.settings(vn, name, nil)
		case yamlpos.IsNull(vn):
		default:
			p.errorf(vn, name, "want a mapping of settings, e.g. model: llama3.2")
		}
		cf.Profiles[name] = prof
		cf.ProfileOrder = append(cf.ProfileOrder, name)
	}
}

// value reads a key's value from its node, or says what is wrong with it,
// naming the key.
func (p *fileParser) value(k Key, n *yaml.Node) (any, string) {
	if yamlpos.IsNull(n) {
		if (k.Kind == String || k.Kind == Path) && (k.Check == nil || k.Check("") == "") {
			return nil, k.Name + `: no value (write "" for an empty one, or remove the line)`
		}
		return nil, k.Name + `: no value (give one, or remove the line)`
	}
	switch k.Kind {
	case List, PathList:
		if n.Kind != yaml.SequenceNode {
			return nil, fmt.Sprintf("%s: want a list, e.g. [%s]", k.Name, listExample(k))
		}
		out := make([]string, 0, len(n.Content))
		for _, item := range n.Content {
			item = yamlpos.Deref(item)
			if item.Kind != yaml.ScalarNode || yamlpos.IsNull(item) {
				return nil, fmt.Sprintf("%s: each entry must be a string (line %d)", k.Name, item.Line)
			}
			s := item.Value
			if k.Kind == PathList {
				s = ExpandHome(s, p.home)
			}
			out = append(out, s)
		}
		return out, ""
	}
	if n.Kind != yaml.ScalarNode {
		return nil, k.Name + ": want a single value, not a list or a mapping"
	}
	switch k.Kind {
	case Int:
		var i int
		if n.Tag == "!!str" && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			return nil, fmt.Sprintf("%s %q: not a whole number (write it without quotes)", k.Name, n.Value)
		}
		if n.Tag != "!!int" || n.Decode(&i) != nil {
			return nil, fmt.Sprintf("%s %q: not a whole number", k.Name, n.Value)
		}
		return i, ""
	case Duration:
		d, err := time.ParseDuration(n.Value)
		if err != nil {
			return nil, fmt.Sprintf("%s %q: %s", k.Name, n.Value, durationHint)
		}
		return d, ""
	case Path:
		return ExpandHome(n.Value, p.home), ""
	case Number:
		return p.number(k.Name, n)
	case Bool:
		var b bool
		if n.Tag != "!!bool" || n.Decode(&b) != nil {
			return nil, fmt.Sprintf("%s %q: want true or false", k.Name, n.Value)
		}
		return b, ""
	}
	return n.Value, ""
}

// number reads a decimal number from a scalar node.
func (p *fileParser) number(name string, n *yaml.Node) (any, string) {
	if n.Tag != "!!int" && n.Tag != "!!float" {
		return nil, fmt.Sprintf("%s %q: %s", name, n.Value, numberHint)
	}
	f, err := parseNumber(n.Value)
	if err != nil {
		return nil, fmt.Sprintf("%s %q: %v", name, n.Value, err)
	}
	return f, ""
}

func listExample(k Key) string {
	switch k.Name {
	case "models":
		return "gpt-4o-mini, llama3.2"
	case "context_keep_tools":
		return "todo, read_plan"
	case "mcp_config":
		return "~/mcp.json"
	}
	return "tools.d, ~/agentloop-tools"
}

// isSecretKey reports whether a key looks like it means to hold a
// credential.
func isSecretKey(name string) bool {
	n := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
	for _, s := range []string{"key", "token", "secret", "password", "passwd", "credential"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// ProfileSummary says what the profile name sets: its model at its base
// URL, either left out when it sets none, the URL's password redacted.
func (f *File) ProfileSummary(name string) string {
	var desc []string
	for _, k := range []string{"model", "base_url"} {
		if v, ok := f.Profiles[name].Values[k]; ok {
			s := v.Value.(string)
			if k == "base_url" {
				s = transcript.RedactURL(s)
			}
			desc = append(desc, s)
		}
	}
	return strings.Join(desc, " at ")
}

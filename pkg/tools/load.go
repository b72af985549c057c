package tools

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/procgroup"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/sandbox/declare"
	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/yamlpos"
)

// Options configure how a Registry runs its tools.
type Options struct {
	// Dir is the working directory of every tool process; "" means the
	// working directory of this process.
	Dir string
	// Getenv is the source of PATH, HOME, LANG, TMPDIR and the variables a
	// tool's env: list names; nil means os.Getenv. Its PATH, or
	// /usr/local/bin:/usr/bin:/bin when that is empty, is also the one
	// command: programs are looked up on.
	Getenv func(string) string
	// MaxProcs caps the tool processes of one Registry that run at once, so
	// that a model asking for hundreds of calls in one turn cannot fork
	// without bound. 0 means DefaultMaxProcs.
	MaxProcs int
	// Sandbox says how tool processes are restricted: the mode of tools
	// without a sandbox: block of their own, and whether a tool whose
	// policy the kernel cannot enforce in full is refused. The zero value
	// runs every tool unrestricted unless its block says otherwise.
	Sandbox sandbox.Settings
	// Servers reads a file that declares an MCP server instead of tools:
	// one whose top-level mapping has the key mcp:. Its problems are
	// reported with the tools'. Without it such a file is a problem.
	Servers func(file string, root *yaml.Node) []*LoadError
}

// DefaultMaxProcs is the cap on concurrent tool processes when
// Options.MaxProcs is 0.
const DefaultMaxProcs = 16

// maxFileSize bounds a tool definition file: anything larger is a mistake
// (a log file named .yaml), not a tool.
const maxFileSize = 1 << 20

// LoadError is one problem in the tool definitions, located by file and
// line. Load returns every LoadError it found, joined with errors.Join and
// sorted by file and line, so err.Error() reads one problem a line; the
// joined error's Unwrap() []error gives them one by one.
//
// A path given to Load that does not exist is a LoadError too, whose Err is
// the *fs.PathError: errors.Is(err, fs.ErrNotExist) reports it. Callers with
// optional default folders leave out the ones that do not exist.
type LoadError struct {
	File string
	Line int // 0 when the problem is with the file as a whole
	Msg  string
	Err  error // the underlying error, if any
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *LoadError) Unwrap() error { return e.Err }

// validName reports whether s is a tool or parameter name: 1 to 64
// letters, digits, '_' or '-'. (Checked by hand: the regular expression
// ^[a-zA-Z0-9_-]{1,64}$ compiles into 64 copies of its class, which was
// near half the instructions of every start of agentloop.)
func validName(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// validEnvName reports whether s is a variable name: a letter or '_',
// then letters, digits and '_'.
func validEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

var toolKeys = []string{"name", "description", "parameters", "schema", "run", "command", "timeout", "max_output", "env", "confirm", "strict", "output", "sandbox"}

var paramKeys = []string{"type", "description", "enum", "default", "required", "items", "properties"}

var paramTypes = []string{"string", "integer", "number", "boolean", "array", "object"}

// typeAliases are spellings from other languages, mapped to the JSON
// Schema type their author meant.
var typeAliases = map[string]string{
	"str": "string", "text": "string", "int": "integer", "float": "number",
	"double": "number", "bool": "boolean", "list": "array", "dict": "object", "map": "object",
}

// credentials are the variables agentloop itself holds for its providers.
// No tool has a reason to see them, so an env: entry naming one is refused.
var credentials = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

// Load reads the tool definitions of paths: every *.yaml and *.yml file of a
// folder (not its subfolders), in name order, or a single file. All problems
// of all files are reported together, as LoadErrors.
//
// The paths are layers, first first: a tool of an earlier path overrides a
// tool of the same name in a later one (as the project's tools.d does the
// user's), and Definition.Overrides says where those were. Two tools of one
// name within one path are an error.
func Load(paths []string, opts Options) (*Registry, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.MaxProcs <= 0 {
		opts.MaxProcs = DefaultMaxProcs
	}
	l := &loader{opts: opts, seen: map[string]bool{}}
	for layer, p := range paths {
		l.layer = layer
		for _, f := range l.files([]string{p}) {
			l.loadFile(f)
		}
	}
	l.checkDuplicates()
	if len(l.errs) > 0 {
		slices.SortStableFunc(l.errs, func(a, b *LoadError) int {
			return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
		})
		errs := make([]error, len(l.errs))
		for i, e := range l.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return newRegistry(l.tools, opts), nil
}

type loader struct {
	opts  Options
	errs  []*LoadError
	tools []*tool
	named []*tool // every tool with a name, valid or not, for duplicates
	seen  map[string]bool
	layer int // the index in Load's paths of the files being read
}

func (l *loader) fail(file string, line int, err error, format string, args ...any) {
	l.errs = append(l.errs, &LoadError{File: file, Line: line, Msg: fmt.Sprintf(format, args...), Err: err})
}

// files expands the paths to the list of files to read, each once.
func (l *loader) files(paths []string) []string {
	var out []string
	add := func(p string) {
		key := p
		if abs, err := filepath.Abs(p); err == nil {
			key = abs
		}
		if !l.seen[key] {
			l.seen[key] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			l.fail(p, 0, err, "%s", describeStatError(err))
			continue
		}
		if !fi.IsDir() {
			add(p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			l.fail(p, 0, err, "cannot read folder: %v", unwrapPathError(err))
			continue
		}
		for _, e := range entries { // ReadDir sorts by name
			ext := filepath.Ext(e.Name())
			if (ext != ".yaml" && ext != ".yml") || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			full := filepath.Join(p, e.Name())
			if fi, err := os.Stat(full); err == nil && fi.IsDir() {
				continue
			}
			add(full)
		}
	}
	return out
}

func describeStatError(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file or folder"
	}
	return unwrapPathError(err).Error()
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (l *loader) loadFile(path string) {
	fi, err := os.Stat(path)
	if err == nil && fi.Size() > maxFileSize {
		l.fail(path, 0, nil, "file is %d bytes; a tool definition is at most %d", fi.Size(), maxFileSize)
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		l.fail(path, 0, err, "cannot read: %v", unwrapPathError(err))
		return
	}
	f := &fileLoader{loader: l, file: path, dir: filepath.Dir(path)}
	f.load(data)
}

// fileLoader decodes the tools of one file.
type fileLoader struct {
	*loader
	file string
	dir  string
	// suggested holds the keys offered for the unknown keys of the mapping
	// last read, so that a misspelt key is not also reported as missing.
	suggested []string
}

func (f *fileLoader) errorf(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	f.fail(f.file, line, nil, format, args...)
}

func (f *fileLoader) load(data []byte) {
	doc, extra, err := yamlpos.Decode(data)
	var syntax *yamlpos.SyntaxError
	switch {
	case errors.As(err, &syntax):
		f.fail(f.file, syntax.Line, err, "invalid YAML: %s", syntax.Problem)
		return
	case doc == nil:
		f.errorf(nil, "no tool defined: the file is empty")
		return
	case extra != nil:
		f.errorf(extra, "more than one YAML document; put several tools in one file as a list under 'tools:'")
		return
	}
	if !f.noAliases(doc) {
		return
	}
	root := yamlpos.Root(doc)
	if root.Kind != yaml.MappingNode {
		f.errorf(root, "a tool file holds a mapping (name:, description:, ...) or a 'tools:' list, got %s", kindName(root))
		return
	}
	if mapValue(root, "mcp") != nil {
		if f.opts.Servers == nil {
			f.errorf(root, "the file declares an MCP server (mcp:), which this command does not read")
			return
		}
		f.errs = append(f.errs, f.opts.Servers(f.file, root)...)
		return
	}
	if list := mapValue(root, "tools"); list != nil {
		if len(root.Content) > 2 {
			f.errorf(root, "a file holds either one tool or a 'tools:' list, not both; move the other keys into a list item")
			return
		}
		if list.Kind != yaml.SequenceNode {
			f.errorf(list, "'tools:' must be a list of tools, got %s", kindName(list))
			return
		}
		if len(list.Content) == 0 {
			f.errorf(list, "'tools:' is an empty list")
			return
		}
		for _, n := range list.Content {
			f.tool(n)
		}
		return
	}
	f.tool(root)
}

// noAliases refuses anchors' aliases: a definition is small enough to write
// out, and expanding aliases while converting to JSON is how a ten-line file
// turns into gigabytes.
func (f *fileLoader) noAliases(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		f.errorf(n, "YAML aliases (*%s) are not supported in tool definitions; write the value out", n.Value)
		return false
	}
	for _, c := range n.Content {
		if !f.noAliases(c) {
			return false
		}
	}
	return true
}

// kindName and mapValue read nodes as every YAML file of agentloop is read.
var (
	kindName = yamlpos.KindName
	mapValue = yamlpos.MapValue
)

// pair is one key and its value in a mapping.
type pair struct{ key, val *yaml.Node }

// fields returns the pairs of mapping n in order, reporting duplicate keys
// and keys not in known (with a suggestion for a near miss).
func (f *fileLoader) fields(n *yaml.Node, known []string, what string) ([]pair, map[string]pair) {
	var list []pair
	byKey := map[string]pair{}
	f.suggested = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			f.errorf(k, "a %s must be a plain word, got %s", what, kindName(k))
			continue
		}
		if prev, dup := byKey[k.Value]; dup {
			f.errorf(k, "%s '%s' given twice (first at line %d)", what, k.Value, prev.key.Line)
			continue
		}
		p := pair{k, v}
		if known != nil && !slices.Contains(known, k.Value) {
			f.errorf(k, "unknown %s '%s'%s", what, k.Value, suggest.DidYouMean(k.Value, known))
			f.suggested = append(f.suggested, suggest.Nearest(k.Value, known))
			byKey[k.Value] = p
			continue
		}
		byKey[k.Value] = p
		list = append(list, p)
	}
	return list, byKey
}

// scalar returns the text of a scalar node, reporting anything else.
func (f *fileLoader) scalar(p pair, want string) (string, bool) {
	if p.val.Kind != yaml.ScalarNode || p.val.Tag == "!!null" {
		f.errorf(p.val, "%s: want %s, got %s", p.key.Value, want, kindName(p.val))
		return "", false
	}
	return p.val.Value, true
}

// boolean returns the value of a true-or-false key, which what names in
// an error.
func (f *fileLoader) boolean(p pair, what string) (bool, bool) {
	var b bool
	if p.val.Kind != yaml.ScalarNode || p.val.Tag != "!!bool" || p.val.Decode(&b) != nil {
		f.errorf(p.val, "%s: want true or false, got %s", what, kindName(p.val))
		return false, false
	}
	return b, true
}

// tool decodes and checks one tool definition.
func (f *fileLoader) tool(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		f.errorf(n, "a tool is a mapping of keys (name:, description:, ...), got %s", kindName(n))
		return
	}
	nerrs := len(f.errs)
	_, fields := f.fields(n, toolKeys, "key")
	t := &tool{def: Definition{File: f.file, Line: n.Line, Timeout: DefaultTimeout, MaxOutput: DefaultMaxOutput}, layer: f.layer}

	if p, ok := fields["name"]; !ok {
		if !slices.Contains(f.suggested, "name") {
			f.errorf(n, "missing 'name'")
		}
	} else if name, ok := f.scalar(p, "a name"); ok {
		if !validName(name) {
			f.errorf(p.val, "name %q: use 1 to 64 letters, digits, '_' or '-'", name)
		}
		t.def.Name, t.nameLine = name, p.val.Line
	}
	if p, ok := fields["description"]; !ok {
		if !slices.Contains(f.suggested, "description") {
			f.errorf(n, "missing 'description': say what the tool does and when the model should use it")
		}
	} else if p.val.Kind == yaml.ScalarNode && (p.val.Tag == "!!null" || strings.TrimSpace(p.val.Value) == "") {
		f.errorf(p.val, "description is empty: say what the tool does and when the model should use it")
	} else if d, ok := f.scalar(p, "text"); ok {
		t.def.Description = strings.TrimSpace(d)
	}
	if p, ok := fields["timeout"]; ok {
		if s, ok := f.scalar(p, "a duration"); ok {
			d, err := time.ParseDuration(s)
			switch {
			case err != nil:
				f.errorf(p.val, "timeout: %q is not a duration; write it like 10s, 2m or 1m30s", s)
			case d <= 0:
				f.errorf(p.val, "timeout: must be more than 0, got %s", s)
			default:
				t.def.Timeout = d
			}
		}
	}
	if p, ok := fields["max_output"]; ok {
		if s, ok := f.scalar(p, "a size"); ok {
			n, err := parseSize(s)
			switch {
			case err != nil:
				f.errorf(p.val, "max_output: %v", err)
			case n <= 0:
				f.errorf(p.val, "max_output: must be more than 0, got %s", s)
			case n > MaxMaxOutput:
				f.errorf(p.val, "max_output: %s is more than the limit of %s", s, formatSize(MaxMaxOutput))
			default:
				t.def.MaxOutput = n
			}
		}
	}
	if p, ok := fields["env"]; ok {
		t.def.Env = f.env(p)
	}
	if p, ok := fields["confirm"]; ok {
		t.def.Confirm, _ = f.boolean(p, "confirm")
	}
	if p, ok := fields["sandbox"]; ok {
		b, probs := declare.Decode(p.val, f.dir, f.opts.Getenv("HOME"))
		for _, pr := range probs {
			f.fail(f.file, pr.Line, nil, "%s", pr.Msg)
		}
		t.def.Sandbox = b
	}
	if p, ok := fields["strict"]; ok {
		t.def.Strict, _ = f.boolean(p, "strict")
	}
	t.def.Output = OutputText
	if p, ok := fields["output"]; ok {
		if s, ok := f.scalar(p, "text, image or content"); ok {
			switch s {
			case OutputText, OutputImage, OutputContent:
				t.def.Output = s
				if _, given := fields["max_output"]; !given && s != OutputText {
					t.def.MaxOutput = DefaultMediaOutput
				}
			default:
				f.errorf(p.val, "output: %q is not a kind of output; use text (the default), image or content", s)
			}
		}
	}
	f.executable(n, t, fields)
	f.schema(n, t, fields)

	if t.def.Name != "" {
		f.named = append(f.named, t)
	}
	if len(f.errs) == nerrs {
		f.tools = append(f.tools, t)
	}
}

func (f *fileLoader) env(p pair) []string {
	if p.val.Kind != yaml.SequenceNode {
		f.errorf(p.val, "env: want a list of variable names, e.g. [HOME, GITHUB_TOKEN], got %s", kindName(p.val))
		return nil
	}
	var names []string
	for _, n := range p.val.Content {
		if n.Kind != yaml.ScalarNode || !validEnvName(n.Value) {
			f.errorf(n, "env: %s is not a variable name", kindName(n))
			continue
		}
		name := n.Value
		switch {
		case slices.Contains(credentials, name):
			f.errorf(n, "env: %s is agentloop's own provider credential and is never passed to a tool", name)
		case strings.HasPrefix(name, "ARG_") || strings.HasPrefix(name, "AGENTLOOP_"):
			f.errorf(n, "env: %s is reserved: agentloop sets ARG_* and AGENTLOOP_* itself", name)
		case slices.Contains(names, name):
			f.errorf(n, "env: %s is listed twice", name)
		default:
			names = append(names, name)
		}
	}
	return names
}

// executable checks run: or command:, exactly one of which is given.
func (f *fileLoader) executable(n *yaml.Node, t *tool, fields map[string]pair) {
	run, hasRun := fields["run"]
	command, hasCommand := fields["command"]
	switch {
	case hasRun && hasCommand:
		f.errorf(command.key, "give either 'run:' (a script) or 'command:' (an argv list), not both")
	case !hasRun && !hasCommand:
		if slices.Contains(f.suggested, "run") || slices.Contains(f.suggested, "command") {
			return
		}
		f.errorf(n, "missing 'run:' (a script path relative to this file) or 'command:' (an argv list)")
	case hasRun:
		s, ok := f.scalar(run, "a script path")
		if !ok {
			return
		}
		if path, ok := f.checkExecutable(run.val, "run", s); ok {
			t.def.Run = path
		}
	default:
		if command.val.Kind != yaml.SequenceNode {
			f.errorf(command.val, "command: want an argv list such as [jq, -r, .name], run without a shell; for a script use 'run:'")
			return
		}
		if len(command.val.Content) == 0 {
			f.errorf(command.val, "command: the argv list is empty")
			return
		}
		argv := make([]string, 0, len(command.val.Content))
		for _, a := range command.val.Content {
			if a.Kind != yaml.ScalarNode || a.Tag == "!!null" {
				f.errorf(a, "command: each argument must be a plain value, got %s", kindName(a))
				return
			}
			argv = append(argv, a.Value)
		}
		if strings.ContainsRune(argv[0], '/') {
			path, ok := f.checkExecutable(command.val.Content[0], "command", argv[0])
			if !ok {
				return
			}
			argv[0] = path
		} else if _, err := procgroup.LookPath(argv[0], f.opts.toolPath()); err != nil {
			if st, err := os.Stat(filepath.Join(f.dir, argv[0])); err == nil && !st.IsDir() {
				// A name without a slash is looked up on PATH, as a shell
				// does; the file beside the YAML is not taken for it.
				f.errorf(command.val.Content[0], "command: %q not found on PATH; for the file beside this YAML write %q", argv[0], "./"+argv[0])
				return
			}
			f.errorf(command.val.Content[0], "command: %q not found on PATH", argv[0])
			return
		}
		t.def.Command = argv
	}
}

// checkExecutable resolves a path relative to the YAML file and checks that
// it can be run as a program.
func (f *fileLoader) checkExecutable(n *yaml.Node, key, p string) (string, bool) {
	path := p
	if !filepath.IsAbs(path) {
		path = filepath.Join(f.dir, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		f.errorf(n, "%s: %v", key, err)
		return "", false
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.errorf(n, "%s: %s does not exist (paths are relative to the YAML file)", key, path)
		return "", false
	case err != nil:
		f.errorf(n, "%s: %v", key, unwrapPathError(err))
		return "", false
	case !fi.Mode().IsRegular():
		f.errorf(n, "%s: %s is not a regular file", key, path)
		return "", false
	case syscall.Access(abs, 1 /* X_OK */) != nil || fi.Mode().Perm()&0o111 == 0:
		f.errorf(n, "%s: %s is not executable%s", key, path, chmodAdvice(f.dir, abs, path, fi))
		return "", false
	}
	if msg := checkInterpreter(abs); msg != "" {
		f.errorf(n, "%s: %s %s", key, path, msg)
		return "", false
	}
	return abs, true
}

// checkInterpreter catches a script without a #! line, which the kernel
// refuses to run ("exec format error") and a shell would silently run with
// itself.
func checkInterpreter(path string) string {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("cannot be read: %v", unwrapPathError(err))
	}
	defer fh.Close()
	head := make([]byte, 4)
	n, _ := fh.Read(head)
	head = head[:n]
	if bytes.HasPrefix(head, []byte("#!")) || bytes.Equal(head, []byte("\x7fELF")) {
		return ""
	}
	return "has no #! line; start it with one, e.g. #!/bin/sh"
}

package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// The configuration of a command comes, setting by setting, from the first
// of these that gives it:
//
//	1. a flag on the command line
//	2. an AGENTLOOP_* environment variable
//	   (base_url: then the provider's own OPENAI_BASE_URL / ANTHROPIC_BASE_URL)
//	3. the configuration file: the selected profile, then the top level
//	4. the built-in default
//
// docs/configuration.md describes the file; keep the two in step.

// newCmdConfig groups the commands that show the configuration.
func newCmdConfig(ios *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the configuration and where each setting comes from",
		Long: `Settings come from flags, AGENTLOOP_* environment variables and the file
$XDG_CONFIG_HOME/agentloop/config.yaml (~/.config/agentloop/config.yaml), in that
order: a flag beats a variable, a variable beats the file, and the file beats
the built-in default. In the file, the profile chosen with --profile NAME or
AGENTLOOP_PROFILE beats the top level.

Keys (file / environment / flag):
  model           AGENTLOOP_MODEL           --model
  provider        AGENTLOOP_PROVIDER        --provider
  base_url        AGENTLOOP_BASE_URL        --base-url
  tools_dirs      AGENTLOOP_TOOLS_DIRS      --tools-dir
  max_steps       AGENTLOOP_MAX_STEPS       --max-steps
  parallel        AGENTLOOP_PARALLEL        --parallel
  transcript_dir  AGENTLOOP_TRANSCRIPT_DIR
  max_retries     AGENTLOOP_MAX_RETRIES     --max-retries
  timeout         AGENTLOOP_TIMEOUT         --timeout
  system          AGENTLOOP_SYSTEM          --system
  models          (file only) model names offered by shell completion
  profiles        (file only) named sets of the keys above

AGENTLOOP_TOOLS_DIRS separates folders with colons. base_url falls back to OPENAI_BASE_URL or ANTHROPIC_BASE_URL (the chosen
provider's) after AGENTLOOP_BASE_URL and before the file. API keys are read
from OPENAI_API_KEY and ANTHROPIC_API_KEY only, never from the file.
See docs/configuration.md.`,
		Example: `  agentloop config show
  agentloop config show --profile ollama --json
  $EDITOR "$(agentloop config path)"`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newCmdConfigShow(ios, nil))
	c.AddCommand(newCmdConfigPath(ios, nil))
	return c
}

// configFileName is the file's name in $XDG_CONFIG_HOME/agentloop.
const configFileName = "config.yaml"

// defaultMaxRetries is the default of max_retries.
const defaultMaxRetries = 2

// maxConfigSize bounds the configuration file: anything larger is not one.
const maxConfigSize = 1 << 20

// valueKind is how a setting's value is written and read.
type valueKind int

const (
	kindString   valueKind = iota
	kindInt                // a whole number
	kindDuration           // 30s, 5m, 1h30m
	kindPath               // a path; ~/ is the home folder
	kindPathList           // paths; colon-separated in the environment
	kindList               // strings; the file only
)

// settingKey is one key of the configuration.
type settingKey struct {
	name string // in the file
	env  string // the AGENTLOOP_* variable, "" for none
	flag string // the flag of the commands that take one, "" for none
	kind valueKind
	// check returns what is wrong with a value, or "".
	check func(v any) string
}

// settingKeys are the keys of the configuration, in the order config show
// prints them.
var settingKeys = []settingKey{
	{name: "model", env: "AGENTLOOP_MODEL", flag: "model", kind: kindString, check: notEmpty},
	{name: "provider", env: "AGENTLOOP_PROVIDER", flag: "provider", kind: kindString, check: checkProvider},
	{name: "base_url", env: "AGENTLOOP_BASE_URL", flag: "base-url", kind: kindString, check: checkBaseURLSetting},
	{name: "tools_dirs", env: "AGENTLOOP_TOOLS_DIRS", flag: "tools-dir", kind: kindPathList, check: noEmptyItem},
	{name: "max_steps", env: "AGENTLOOP_MAX_STEPS", flag: "max-steps", kind: kindInt, check: atLeast(1, "must be at least 1")},
	{name: "parallel", env: "AGENTLOOP_PARALLEL", flag: "parallel", kind: kindInt, check: atLeast(1, "must be at least 1")},
	{name: "transcript_dir", env: "AGENTLOOP_TRANSCRIPT_DIR", kind: kindPath, check: notEmpty},
	{name: "max_retries", env: "AGENTLOOP_MAX_RETRIES", flag: "max-retries", kind: kindInt, check: atLeast(0, "must be 0 or more")},
	{name: "timeout", env: "AGENTLOOP_TIMEOUT", flag: "timeout", kind: kindDuration, check: notNegative},
	{name: "system", env: "AGENTLOOP_SYSTEM", flag: "system", kind: kindString},
	{name: "models", kind: kindList, check: noEmptyItem},
}

// profileEnv selects a profile when --profile is not given.
const profileEnv = "AGENTLOOP_PROFILE"

func lookupKey(name string) (settingKey, bool) {
	for _, k := range settingKeys {
		if k.name == name {
			return k, true
		}
	}
	return settingKey{}, false
}

func notEmpty(v any) string {
	if v.(string) == "" {
		return "must not be empty"
	}
	return ""
}

func checkProvider(v any) string {
	switch v.(string) {
	case "openai", "anthropic":
		return ""
	}
	return "use openai or anthropic"
}

func checkBaseURLSetting(v any) string { return baseURLProblem(v.(string)) }

func noEmptyItem(v any) string {
	for _, s := range v.([]string) {
		if s == "" {
			return "an entry is empty"
		}
	}
	return ""
}

func atLeast(n int, msg string) func(any) string {
	return func(v any) string {
		if v.(int) < n {
			return msg
		}
		return ""
	}
}

func notNegative(v any) string {
	if v.(time.Duration) < 0 {
		return "must be positive (0 means no limit)"
	}
	return ""
}

// source says where a setting's value came from.
type source struct {
	kind    string // sourceFlag, sourceEnv, sourceFile or sourceDefault
	name    string // the flag (--model) or the variable (AGENTLOOP_MODEL)
	file    string
	line    int
	profile string
}

const (
	sourceFlag    = "flag"
	sourceEnv     = "env"
	sourceFile    = "file"
	sourceDefault = "default"
)

// describe is the source as config show prints it; paths under home are
// written with ~.
func (s source) describe(home string) string {
	switch s.kind {
	case sourceEnv:
		return "env " + s.name
	case sourceFile:
		d := "file " + tildePath(s.file, home)
		if s.profile != "" {
			d += " (profile " + s.profile + ")"
		}
		return d
	}
	return s.kind
}

// setting is a value and its source.
type setting struct {
	value any
	src   source
}

// Config is the resolved configuration of one command line.
type Config struct {
	Path     string   // the configuration file; "" when there is no config folder
	Found    bool     // the file exists and was read
	Profile  string   // the selected profile, "" for none
	Profiles []string // the profiles the file defines, in file order

	Model         string
	Provider      string   // "" when unset: chosen from the model's name
	ToolsDirs     []string // nil when unset: the default folders
	MaxSteps      int
	Parallel      int
	TranscriptDir string
	MaxRetries    int
	Timeout       time.Duration
	System        string
	Models        []string

	settings map[string]setting // by key name, and "profile"
	file     *configFile
	getenv   func(string) string
}

// source is where the value of key came from.
func (c *Config) source(key string) source { return c.settings[key].src }

// providerName is the provider the configuration chooses, naming it when
// only the model does.
func (c *Config) providerName() string {
	o := modelOptions{Provider: c.Provider, Model: c.Model}
	return o.providerName()
}

// baseURL resolves base_url for a provider: a flag or AGENTLOOP_BASE_URL,
// else the provider's own variable, else the file, else "" (the provider's
// default). It is a method because replay --resume learns the provider from
// the transcript, after the rest is resolved.
func (c *Config) baseURL(provider string) (string, source) {
	s := c.settings["base_url"]
	if s.src.kind == sourceFlag || s.src.kind == sourceEnv {
		return s.value.(string), s.src
	}
	env := "OPENAI_BASE_URL"
	if provider == "anthropic" {
		env = "ANTHROPIC_BASE_URL"
	}
	if v := c.getenv(env); v != "" {
		return v, source{kind: sourceEnv, name: env}
	}
	return s.value.(string), s.src
}

// useModel puts the model settings into the options of run.
func (c *Config) useModel(mo *modelOptions) {
	mo.Model, mo.Provider, mo.System = c.Model, c.Provider, c.System
	mo.BaseURL, _ = c.baseURL(mo.providerName())
	mo.MaxRetries, mo.Timeout = c.MaxRetries, c.Timeout
}

// fillModel fills the model settings replay --resume has from neither a
// flag nor the transcript. The provider is already decided.
func (c *Config) fillModel(mo *modelOptions) {
	if mo.Model == "" {
		mo.Model = c.Model
	}
	if mo.System == "" {
		mo.System = c.System
	}
	if mo.BaseURL == "" {
		mo.BaseURL, _ = c.baseURL(mo.providerName())
	}
}

// configPath is $XDG_CONFIG_HOME/agentloop/config.yaml, or "" when there is
// neither XDG_CONFIG_HOME nor HOME.
func configPath(ios *IOStreams) string {
	dir := userConfigDir(ios)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "agentloop", configFileName)
}

// configProblems are the problems found in the configuration, each naming
// its file and line, or its variable or flag.
type configProblems []string

func (p configProblems) Error() string { return strings.Join(p, "\n") }

// resolveConfig resolves the configuration of a command line. Every
// setting the command has a flag for is read from flags. Problems are usage
// errors: a bad flag prints usage, a bad file or variable does not, and
// several problems are printed one a line before the count.
func resolveConfig(ios *IOStreams, flags *pflag.FlagSet) (*Config, error) {
	cfg, err := loadConfig(ios, flags)
	if err == nil {
		return cfg, nil
	}
	var fe *FlagError
	if errors.As(err, &fe) {
		return nil, err
	}
	var probs configProblems
	if !errors.As(err, &probs) || len(probs) == 1 {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	for _, p := range probs {
		fmt.Fprintln(ios.ErrOut, p)
	}
	return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%d problems in the configuration", len(probs))}
}

// configFor is resolveConfig for a command.
func configFor(c *cobra.Command, ios *IOStreams) (*Config, error) {
	return resolveConfig(ios, c.Flags())
}

// onlyFlags is the part of a flag set that names.
func onlyFlags(fs *pflag.FlagSet, names ...string) *pflag.FlagSet {
	out := pflag.NewFlagSet("", pflag.ContinueOnError)
	for _, n := range names {
		if f := fs.Lookup(n); f != nil {
			out.AddFlag(f)
		}
	}
	return out
}

// loadConfig resolves the configuration without printing anything; shell
// completion uses it as it is.
func loadConfig(ios *IOStreams, flags *pflag.FlagSet) (*Config, error) {
	home := ios.Getenv("HOME")
	cfg := &Config{Path: configPath(ios), settings: map[string]setting{}, getenv: ios.Getenv}
	if cfg.Path != "" {
		f, err := readConfigFile(cfg.Path, home)
		if err != nil {
			return nil, err
		}
		if f != nil {
			cfg.Found, cfg.file = true, f
			cfg.Profiles = f.profileOrder
		}
	}

	// The profile: --profile, else AGENTLOOP_PROFILE.
	profSrc := source{kind: sourceDefault}
	if fl := lookupFlag(flags, "profile"); fl != nil && fl.Changed {
		cfg.Profile, profSrc = fl.Value.String(), source{kind: sourceFlag, name: "--profile"}
	} else if v := ios.Getenv(profileEnv); v != "" {
		cfg.Profile, profSrc = v, source{kind: sourceEnv, name: profileEnv}
	}
	cfg.settings["profile"] = setting{cfg.Profile, profSrc}
	var prof *fileProfile
	if cfg.Profile != "" {
		var err error
		if prof, err = cfg.selectProfile(profSrc); err != nil {
			return nil, err
		}
	}

	var probs configProblems
	for _, k := range settingKeys {
		s, err := resolveKey(k, flags, ios.Getenv, home, prof, cfg.file)
		if err != nil {
			var fe *FlagError
			if errors.As(err, &fe) {
				return nil, err
			}
			probs = append(probs, err.Error())
			continue
		}
		if s.src.kind == sourceDefault {
			s.value = defaultValue(k, ios)
		}
		cfg.settings[k.name] = s
	}
	if len(probs) > 0 {
		return nil, probs
	}
	// The default model is the chosen provider's: Anthropic is not asked
	// for an OpenAI model.
	if m := cfg.settings["model"]; m.src.kind == sourceDefault {
		m.value = defaultModelFor(cfg.settings["provider"].value.(string))
		cfg.settings["model"] = m
	}

	cfg.Model = cfg.settings["model"].value.(string)
	cfg.Provider = cfg.settings["provider"].value.(string)
	cfg.ToolsDirs = asList(cfg.settings["tools_dirs"].value)
	cfg.MaxSteps = cfg.settings["max_steps"].value.(int)
	cfg.Parallel = cfg.settings["parallel"].value.(int)
	cfg.TranscriptDir = cfg.settings["transcript_dir"].value.(string)
	cfg.MaxRetries = cfg.settings["max_retries"].value.(int)
	cfg.Timeout = cfg.settings["timeout"].value.(time.Duration)
	cfg.System = cfg.settings["system"].value.(string)
	cfg.Models = asList(cfg.settings["models"].value)
	return cfg, nil
}

// selectProfile finds the selected profile in the file.
func (c *Config) selectProfile(src source) (*fileProfile, error) {
	given := "--profile " + c.Profile
	if src.kind == sourceEnv {
		given = profileEnv + "=" + c.Profile
	}
	if c.file == nil {
		where := "there is no configuration file"
		if c.Path != "" {
			where += " (" + c.Path + ")"
		}
		return nil, fmt.Errorf("%s: %s to define it in", given, where)
	}
	if p, ok := c.file.profiles[c.Profile]; ok {
		return p, nil
	}
	defined := "it defines none"
	if len(c.Profiles) > 0 {
		defined = "it defines " + strings.Join(c.Profiles, ", ")
	}
	return nil, fmt.Errorf("%s: no such profile in %s%s; %s", given, c.Path, suggest.DidYouMean(c.Profile, c.Profiles), defined)
}

// lookupFlag finds a flag; flags may be nil.
func lookupFlag(flags *pflag.FlagSet, name string) *pflag.Flag {
	if flags == nil || name == "" {
		return nil
	}
	return flags.Lookup(name)
}

// resolveKey takes a key's value from the first source that gives it. A
// default is marked but not computed here.
func resolveKey(k settingKey, flags *pflag.FlagSet, getenv func(string) string, home string, prof *fileProfile, file *configFile) (setting, error) {
	if fl := lookupFlag(flags, k.flag); fl != nil && fl.Changed {
		v, err := flagValue(k, fl)
		if err != nil {
			return setting{}, flagErrorf("--%s %s: %s", k.flag, fl.Value.String(), err)
		}
		if k.check != nil {
			if p := k.check(v); p != "" {
				return setting{}, flagErrorf("--%s %s: %s", k.flag, shownValue(v), p)
			}
		}
		return setting{v, source{kind: sourceFlag, name: "--" + k.flag}}, nil
	}
	if raw := getenv(k.env); k.env != "" && raw != "" {
		v, err := envValue(k, raw, home)
		if err == nil && k.check != nil {
			if p := k.check(v); p != "" {
				err = errors.New(p)
			}
		}
		if err != nil {
			return setting{}, fmt.Errorf("%s=%s: %v", k.env, transcript.RedactURL(raw), err)
		}
		return setting{v, source{kind: sourceEnv, name: k.env}}, nil
	}
	if prof != nil {
		if fv, ok := prof.values[k.name]; ok {
			return setting{fv.value, source{kind: sourceFile, file: file.path, line: fv.line, profile: prof.name}}, nil
		}
	}
	if file != nil {
		if fv, ok := file.top[k.name]; ok {
			return setting{fv.value, source{kind: sourceFile, file: file.path, line: fv.line}}, nil
		}
	}
	return setting{src: source{kind: sourceDefault}}, nil
}

// flagValue reads a flag's value as the key's kind.
func flagValue(k settingKey, fl *pflag.Flag) (any, error) {
	switch k.kind {
	case kindInt:
		return strconv.Atoi(fl.Value.String())
	case kindDuration:
		return time.ParseDuration(fl.Value.String())
	case kindPathList, kindList:
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			return sv.GetSlice(), nil
		}
		return []string{fl.Value.String()}, nil
	}
	return fl.Value.String(), nil
}

// envValue parses an environment variable's value as the key's kind.
func envValue(k settingKey, raw, home string) (any, error) {
	switch k.kind {
	case kindInt:
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return nil, errors.New("not a whole number")
		}
		return n, nil
	case kindDuration:
		d, err := time.ParseDuration(strings.TrimSpace(raw))
		if err != nil {
			return nil, errors.New(durationHint)
		}
		return d, nil
	case kindPath:
		return expandHome(raw, home), nil
	case kindPathList, kindList:
		var out []string
		for _, p := range filepath.SplitList(raw) {
			if p != "" {
				out = append(out, expandHome(p, home))
			}
		}
		return out, nil
	}
	return raw, nil
}

const durationHint = "not a duration: write a number and a unit, e.g. 30s, 5m or 1h"

// defaultValue is a key's built-in default.
func defaultValue(k settingKey, ios *IOStreams) any {
	switch k.name {
	case "model":
		return DefaultModel
	case "max_steps":
		return agent.DefaultMaxSteps
	case "parallel":
		return agent.DefaultParallel
	case "max_retries":
		return defaultMaxRetries
	case "transcript_dir":
		return filepath.Join(stateDir(ios), "transcripts")
	}
	switch k.kind {
	case kindInt:
		return 0
	case kindDuration:
		return time.Duration(0)
	case kindList, kindPathList:
		return []string(nil)
	}
	return ""
}

func asList(v any) []string {
	l, _ := v.([]string)
	return l
}

// shownValue writes a value as an error message quotes it.
func shownValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(transcript.RedactURL(v))
	case []string:
		return "[" + strings.Join(v, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// expandHome expands a leading ~ to the home folder.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// tildePath writes a path under home with ~.
func tildePath(p, home string) string {
	if home == "" || home == "/" {
		return p
	}
	home = filepath.Clean(home)
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~/" + rest
	}
	return p
}

// configFile is the configuration file, parsed and checked.
type configFile struct {
	path         string
	top          map[string]fileValue
	profiles     map[string]*fileProfile
	profileOrder []string
}

type fileProfile struct {
	name   string
	line   int
	values map[string]fileValue
}

type fileValue struct {
	value any
	line  int
}

// readConfigFile reads and checks the configuration file; a file that does
// not exist is no configuration (nil, nil).
func readConfigFile(path, home string) (*configFile, error) {
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
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	if len(data) > maxConfigSize {
		return nil, fmt.Errorf("%s: larger than %d KiB: not a configuration file", path, maxConfigSize>>10)
	}
	cf, probs := parseConfig(path, data, home)
	if len(probs) > 0 {
		return nil, probs
	}
	return cf, nil
}

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseConfig parses the configuration file's bytes. Every problem is
// returned, each as file:line: message.
func parseConfig(path string, data []byte, home string) (*configFile, configProblems) {
	p := &configParser{path: path, home: home}
	cf := &configFile{path: path, top: map[string]fileValue{}, profiles: map[string]*fileProfile{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlErrLine.FindStringSubmatch(err.Error()); m != nil {
			return nil, configProblems{fmt.Sprintf("%s:%s: %s", path, m[1], m[2])}
		}
		return nil, configProblems{fmt.Sprintf("%s: %s", path, msg)}
	}
	if len(doc.Content) == 0 {
		return cf, nil // empty, or comments only
	}
	root := deref(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return cf, nil
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "", "the file must be a mapping of keys to values, e.g. model: gpt-4o-mini")
		return nil, p.probs
	}
	cf.top = p.settings(root, "", func(k, v *yaml.Node) bool {
		if k.Value != "profiles" {
			return false
		}
		p.profiles(v, cf)
		return true
	})
	if len(p.probs) > 0 {
		return nil, p.probs
	}
	return cf, nil
}

type configParser struct {
	path  string
	home  string
	probs configProblems
}

func (p *configParser) errorf(n *yaml.Node, profile, format string, args ...any) {
	where := ""
	if profile != "" {
		where = "profile '" + profile + "': "
	}
	p.probs = append(p.probs, fmt.Sprintf("%s:%d: %s%s", p.path, n.Line, where, fmt.Sprintf(format, args...)))
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// settings reads the keys of a mapping: the top level (profile "") or a
// profile. extra handles keys only the top level has.
func (p *configParser) settings(m *yaml.Node, profile string, extra func(k, v *yaml.Node) bool) map[string]fileValue {
	out := map[string]fileValue{}
	seen := map[string]int{}
	known := make([]string, 0, len(settingKeys)+1)
	for _, k := range settingKeys {
		known = append(known, k.name)
	}
	if extra != nil {
		known = append(known, "profiles")
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := m.Content[i], deref(m.Content[i+1])
		name := kn.Value
		if first, dup := seen[name]; dup {
			p.errorf(kn, profile, "duplicate key '%s' (first at line %d)", name, first)
			continue
		}
		seen[name] = kn.Line
		if extra != nil && extra(kn, vn) {
			continue
		}
		k, ok := lookupKey(name)
		switch {
		case ok:
			v, problem := p.value(k, vn)
			if problem == "" && k.check != nil {
				if problem = k.check(v); problem != "" {
					problem = fmt.Sprintf("%s %s: %s", name, shownValue(v), problem)
				}
			}
			if problem != "" {
				p.errorf(vn, profile, "%s", problem)
				continue
			}
			out[name] = fileValue{v, kn.Line}
		case isSecretKey(name):
			p.errorf(kn, profile, "%s: API keys are never read from the configuration file; set OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment", name)
		case name == "profiles":
			p.errorf(kn, profile, "profiles cannot be nested: define each profile at the top level's profiles:")
		default:
			p.errorf(kn, profile, "unknown key '%s'%s", name, suggest.DidYouMean(name, known))
		}
	}
	return out
}

// profiles reads the profiles: mapping.
func (p *configParser) profiles(v *yaml.Node, cf *configFile) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(v, "", "profiles: want a mapping of profile names to settings, e.g. profiles: {ollama: {model: llama3.2}}")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], deref(v.Content[i+1])
		name := kn.Value
		if name == "" || kn.Kind != yaml.ScalarNode {
			p.errorf(kn, "", "profiles: a profile needs a name")
			continue
		}
		if prev, dup := cf.profiles[name]; dup {
			p.errorf(kn, "", "duplicate profile '%s' (first at line %d)", name, prev.line)
			continue
		}
		prof := &fileProfile{name: name, line: kn.Line, values: map[string]fileValue{}}
		switch {
		case vn.Kind == yaml.MappingNode:
			prof.values = p.settings(vn, name, nil)
		case vn.Kind == yaml.ScalarNode && vn.Tag == "!!null":
		default:
			p.errorf(vn, name, "want a mapping of settings, e.g. model: llama3.2")
		}
		cf.profiles[name] = prof
		cf.profileOrder = append(cf.profileOrder, name)
	}
}

// value reads a key's value from its node, or says what is wrong with it,
// naming the key.
func (p *configParser) value(k settingKey, n *yaml.Node) (any, string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, k.name + `: no value (write "" for an empty one, or remove the line)`
	}
	switch k.kind {
	case kindList, kindPathList:
		if n.Kind != yaml.SequenceNode {
			return nil, fmt.Sprintf("%s: want a list, e.g. [%s]", k.name, listExample(k))
		}
		out := make([]string, 0, len(n.Content))
		for _, item := range n.Content {
			item = deref(item)
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return nil, fmt.Sprintf("%s: each entry must be a string (line %d)", k.name, item.Line)
			}
			s := item.Value
			if k.kind == kindPathList {
				s = expandHome(s, p.home)
			}
			out = append(out, s)
		}
		return out, ""
	}
	if n.Kind != yaml.ScalarNode {
		return nil, k.name + ": want a single value, not a list or a mapping"
	}
	switch k.kind {
	case kindInt:
		var i int
		if n.Tag == "!!str" && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			return nil, fmt.Sprintf("%s %q: not a whole number (write it without quotes)", k.name, n.Value)
		}
		if n.Tag != "!!int" || n.Decode(&i) != nil {
			return nil, fmt.Sprintf("%s %q: not a whole number", k.name, n.Value)
		}
		return i, ""
	case kindDuration:
		d, err := time.ParseDuration(n.Value)
		if err != nil {
			return nil, fmt.Sprintf("%s %q: %s", k.name, n.Value, durationHint)
		}
		return d, ""
	case kindPath:
		return expandHome(n.Value, p.home), ""
	}
	return n.Value, ""
}

func listExample(k settingKey) string {
	if k.name == "models" {
		return "gpt-4o-mini, llama3.2"
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

// useConfig fills run's options from the configuration; a flag given is
// already there and agrees with it.
func (o *RunOptions) useConfig(c *cobra.Command) error {
	cfg, err := configFor(c, o.IO)
	if err != nil {
		return err
	}
	cfg.useModel(&o.Model)
	o.ToolsDirs, o.MaxSteps, o.Parallel = cfg.ToolsDirs, cfg.MaxSteps, cfg.Parallel
	o.TranscriptDir = cfg.TranscriptDir
	return nil
}

// useConfig fills replay's options from the configuration. The model
// settings wait in Config: with --resume the transcript's header comes
// between a flag and the configuration. --show and --html use no setting, so
// they read a transcript whatever state the configuration is in.
func (o *ReplayOptions) useConfig(c *cobra.Command) error {
	if o.Show || o.HTML != "" {
		return nil
	}
	cfg, err := configFor(c, o.IO)
	if err != nil {
		return err
	}
	o.Config = cfg
	o.ToolsDirs, o.MaxSteps, o.Parallel = cfg.ToolsDirs, cfg.MaxSteps, cfg.Parallel
	o.Model.MaxRetries, o.Model.Timeout = cfg.MaxRetries, cfg.Timeout
	o.TranscriptDir = cfg.TranscriptDir
	return nil
}

package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Input is what a configuration is resolved from. Resolve reads the file
// at Path and nothing else: the command line and the environment come
// from the caller.
type Input struct {
	// Flag reports a flag given on the command line: its value as text and,
	// for a repeatable flag, its values. Nil reads no flags.
	Flag func(name string) (value string, list []string, given bool)
	// Getenv reads the environment; nil reads none.
	Getenv func(string) string
	// Home expands a leading ~ in paths; "" leaves them as they are.
	Home string
	// Path is the configuration file; "" for none (no config folder).
	Path string
	// StateDir holds the default transcript_dir, StateDir/transcripts.
	StateDir string
}

// Source says where a setting's value came from.
type Source struct {
	Kind    string // SourceFlag, SourceEnv, SourceFile or SourceDefault
	Name    string // the flag (--model) or the variable (AGENTLOOP_MODEL)
	File    string
	Line    int
	Profile string
}

// The kinds of Source, strongest first.
const (
	SourceFlag    = "flag"
	SourceEnv     = "env"
	SourceFile    = "file"
	SourceDefault = "default"
)

// Describe is the source as config show prints it; paths under home are
// written with ~.
func (s Source) Describe(home string) string {
	switch s.Kind {
	case SourceEnv:
		return "env " + s.Name
	case SourceFile:
		d := "file " + TildePath(s.File, home)
		if s.Profile != "" {
			d += " (profile " + s.Profile + ")"
		}
		return d
	}
	return s.Kind
}

// setting is a value and its source.
type setting struct {
	value any
	src   Source
}

// Config is a resolved configuration.
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
	IdleTimeout   time.Duration
	System        string
	Models        []string
	// MCPConfig are the {"mcpServers": …} files to read; MCPServers the
	// servers the file's mcp_servers: declares.
	MCPConfig  []string
	MCPServers []*mcp.Config
	// Sandbox is the sandbox mode of tools without one of their own;
	// SandboxRequired refuses a tool whose policy is not enforced in full.
	Sandbox         sandbox.Mode
	SandboxRequired bool
	// OTel exports the runs' spans and metrics over OTLP; where it came
	// from matters, as the OTEL_EXPORTER_OTLP_* variables go between the
	// environment and the file (see tracing.Wanted).
	OTel bool
	// Schema is the schema the final answer must match (--schema), as
	// given: "" for none. SchemaRetries and SchemaMode say how it is held
	// to it.
	Schema        string
	SchemaRetries int
	SchemaMode    string
	// BatchAPI sends a batch's model requests through the provider's
	// Batch API, a round at a time (agentloop batch).
	BatchAPI bool

	// The budgets of a run: 0 is no limit.
	MaxTotalTokens int
	MaxCost        float64
	// The clearing of old tool results (see agent.ContextPolicy).
	ContextLimit        int
	ContextKeep         int
	ContextKeepTools    []string
	ContextClearAtLeast int
	ContextEditing      string
	// Prices are the file's prices: table, by model.
	Prices map[string]Price

	settings map[string]setting // by key name, and "profile"
	file     *File
	getenv   func(string) string
}

// Source is where the value of a key (or "profile") came from.
func (c *Config) Source(key string) Source { return c.settings[key].src }

// ProviderName is the provider the configuration chooses, naming it when
// only the model does.
func (c *Config) ProviderName() string { return ProviderFor(c.Provider, c.Model) }

// BaseURL resolves base_url for a provider: a flag or AGENTLOOP_BASE_URL,
// else the provider's own variable, else the file, else "" (the provider's
// default). It takes the provider because a resumed run learns it from
// the transcript, after the rest is resolved.
func (c *Config) BaseURL(provider string) (string, Source) {
	s := c.settings["base_url"]
	if s.src.Kind == SourceFlag || s.src.Kind == SourceEnv {
		return s.value.(string), s.src
	}
	env := ProviderBaseURLEnv(provider)
	if v := c.getenv(env); v != "" {
		return v, Source{Kind: SourceEnv, Name: env}
	}
	return s.value.(string), s.src
}

// ProviderBaseURLEnv is the provider's own base URL variable.
func ProviderBaseURLEnv(provider string) string {
	return ProviderEnvPrefix(provider) + "_BASE_URL"
}

// FlagError is a flag whose value is wrong: a mistake on the command line.
type FlagError struct{ Msg string }

func (e *FlagError) Error() string { return e.Msg }

// Resolve resolves a configuration. A bad flag is a *FlagError; the
// problems of the file and the variables are Problems, all of them; a
// profile that is not there, or a file that cannot be read, is an error
// saying so.
func Resolve(in Input) (*Config, error) {
	if in.Getenv == nil {
		in.Getenv = func(string) string { return "" }
	}
	if in.Flag == nil {
		in.Flag = func(string) (string, []string, bool) { return "", nil, false }
	}
	cfg := &Config{Path: in.Path, settings: map[string]setting{}, getenv: in.Getenv}
	if cfg.Path != "" {
		f, err := ReadFile(cfg.Path, in.Home)
		if err != nil {
			return nil, err
		}
		if f != nil {
			cfg.Found, cfg.file = true, f
			cfg.Profiles = f.ProfileOrder
		}
	}

	// The profile: --profile, else AGENTLOOP_PROFILE.
	profSrc := Source{Kind: SourceDefault}
	if v, _, ok := in.Flag("profile"); ok {
		cfg.Profile, profSrc = v, Source{Kind: SourceFlag, Name: "--profile"}
	} else if v := in.Getenv(ProfileEnv); v != "" {
		cfg.Profile, profSrc = v, Source{Kind: SourceEnv, Name: ProfileEnv}
	}
	cfg.settings["profile"] = setting{cfg.Profile, profSrc}
	var prof *Profile
	if cfg.Profile != "" {
		var err error
		if prof, err = cfg.selectProfile(profSrc); err != nil {
			return nil, err
		}
	}

	var probs Problems
	for _, k := range Keys {
		s, err := resolveKey(k, in, prof, cfg.file)
		if err != nil {
			var fe *FlagError
			if errors.As(err, &fe) {
				return nil, err
			}
			probs = append(probs, err.Error())
			continue
		}
		if s.src.Kind == SourceDefault {
			s.value = defaultValue(k, in.StateDir)
		}
		cfg.settings[k.Name] = s
	}
	if len(probs) > 0 {
		return nil, probs
	}
	// The default model is the chosen provider's: Anthropic is not asked
	// for an OpenAI model.
	if m := cfg.settings["model"]; m.src.Kind == SourceDefault {
		m.value = DefaultModelFor(cfg.settings["provider"].value.(string))
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
	cfg.IdleTimeout = cfg.settings["idle_timeout"].value.(time.Duration)
	cfg.System = cfg.settings["system"].value.(string)
	cfg.Models = asList(cfg.settings["models"].value)
	cfg.MaxTotalTokens = cfg.settings["max_total_tokens"].value.(int)
	cfg.MaxCost = cfg.settings["max_cost"].value.(float64)
	cfg.ContextLimit = cfg.settings["context_limit"].value.(int)
	cfg.ContextKeep = cfg.settings["context_keep"].value.(int)
	cfg.ContextKeepTools = asList(cfg.settings["context_keep_tools"].value)
	cfg.ContextClearAtLeast = cfg.settings["context_clear_at_least"].value.(int)
	cfg.ContextEditing = cfg.settings["context_editing"].value.(string)
	if cfg.file != nil {
		cfg.Prices = cfg.file.Prices
	}
	cfg.MCPConfig = asList(cfg.settings["mcp_config"].value)
	cfg.MCPServers, _ = cfg.settings["mcp_servers"].value.([]*mcp.Config)
	cfg.Sandbox = sandbox.Mode(cfg.settings["sandbox"].value.(string))
	cfg.SandboxRequired = cfg.settings["sandbox_required"].value.(bool)
	cfg.OTel = cfg.settings["otel"].value.(bool)
	cfg.Schema = cfg.settings["schema"].value.(string)
	cfg.SchemaRetries = cfg.settings["schema_retries"].value.(int)
	cfg.SchemaMode = cfg.settings["schema_mode"].value.(string)
	cfg.BatchAPI = cfg.settings["batch_api"].value.(bool)
	return cfg, nil
}

// selectProfile finds the selected profile in the file.
func (c *Config) selectProfile(src Source) (*Profile, error) {
	given := "--profile " + c.Profile
	if src.Kind == SourceEnv {
		given = ProfileEnv + "=" + c.Profile
	}
	if c.file == nil {
		where := "there is no configuration file"
		if c.Path != "" {
			where += " (" + c.Path + ")"
		}
		return nil, fmt.Errorf("%s: %s to define it in", given, where)
	}
	if p, ok := c.file.Profiles[c.Profile]; ok {
		return p, nil
	}
	defined := "it defines none"
	if len(c.Profiles) > 0 {
		defined = "it defines " + strings.Join(c.Profiles, ", ")
	}
	return nil, fmt.Errorf("%s: no such profile in %s%s; %s", given, c.Path, suggest.DidYouMean(c.Profile, c.Profiles), defined)
}

// resolveKey takes a key's value from the first source that gives it. A
// default is marked but not computed here.
func resolveKey(k Key, in Input, prof *Profile, file *File) (setting, error) {
	if k.Flag != "" {
		if raw, list, ok := in.Flag(k.Flag); ok {
			v, err := flagValue(k, raw, list)
			if err != nil {
				return setting{}, &FlagError{fmt.Sprintf("--%s %s: %s", k.Flag, raw, err)}
			}
			if k.Check != nil {
				if p := k.Check(v); p != "" {
					return setting{}, &FlagError{fmt.Sprintf("--%s %s: %s", k.Flag, shownValue(v), p)}
				}
			}
			return setting{v, Source{Kind: SourceFlag, Name: "--" + k.Flag}}, nil
		}
	}
	if raw := in.Getenv(k.Env); k.Env != "" && raw != "" {
		v, err := envValue(k, raw, in.Home)
		if err == nil && k.Check != nil {
			if p := k.Check(v); p != "" {
				err = errors.New(p)
			}
		}
		if err != nil {
			shown := transcript.RedactURL(raw)
			if strings.ContainsFunc(shown, unicode.IsControl) {
				shown = strconv.Quote(shown) // a line end kept on one line
			}
			return setting{}, fmt.Errorf("%s=%s: %v", k.Env, shown, err)
		}
		return setting{v, Source{Kind: SourceEnv, Name: k.Env}}, nil
	}
	if prof != nil {
		if fv, ok := prof.Values[k.Name]; ok {
			return setting{fv.Value, Source{Kind: SourceFile, File: file.Path, Line: fv.Line, Profile: prof.Name}}, nil
		}
	}
	if file != nil {
		if fv, ok := file.Top[k.Name]; ok {
			return setting{fv.Value, Source{Kind: SourceFile, File: file.Path, Line: fv.Line}}, nil
		}
	}
	return setting{src: Source{Kind: SourceDefault}}, nil
}

// flagValue reads a flag's value as the key's kind.
func flagValue(k Key, raw string, list []string) (any, error) {
	switch k.Kind {
	case Int:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return nil, errors.New("not a whole number")
		}
		return n, nil
	case Duration:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return nil, errors.New(durationHint)
		}
		return d, nil
	case Number:
		return parseNumber(raw)
	case Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return nil, errors.New("want true or false")
		}
		return b, nil
	case PathList, List:
		if list != nil {
			return list, nil
		}
		return []string{raw}, nil
	}
	return raw, nil
}

// envValue parses an environment variable's value as the key's kind.
func envValue(k Key, raw, home string) (any, error) {
	switch k.Kind {
	case Int:
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return nil, errors.New("not a whole number")
		}
		return n, nil
	case Duration:
		d, err := time.ParseDuration(strings.TrimSpace(raw))
		if err != nil {
			return nil, errors.New(durationHint)
		}
		return d, nil
	case Number:
		return parseNumber(strings.TrimSpace(raw))
	case Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, errors.New("want true or false (or 1 or 0)")
		}
		return b, nil
	case Path:
		return ExpandHome(raw, home), nil
	case PathList, List:
		var out []string
		for _, p := range filepath.SplitList(raw) {
			if p != "" {
				out = append(out, ExpandHome(p, home))
			}
		}
		return out, nil
	}
	return raw, nil
}

func asList(v any) []string {
	l, _ := v.([]string)
	return l
}

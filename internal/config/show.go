package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// What config show prints: each setting's value and where it comes from,
// the provider keys as set or unset, and the prices in effect.

// Row is one setting as config show prints it.
type Row struct {
	Key   string
	Value any // string, int, bool, float64, []string or []ServerSummary
	Src   Source
	Path  bool // the value is a path or paths: written with ~ on a terminal
}

// CredentialVars are the provider keys config show reports as set or
// unset, never their values.
var CredentialVars = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

// Rows are the settings in the order config show prints them.
// defaultBaseURL gives a provider's own base URL, for when none is set;
// defaultDirs are the tools folders read when none is set.
func (c *Config) Rows(defaultBaseURL func(provider string) string, defaultDirs []string) []Row {
	provider := c.ProviderName()
	baseURL, baseSrc := c.BaseURL(provider)
	if baseURL == "" {
		baseURL = defaultBaseURL(provider)
	} else if u, err := url.Parse(baseURL); err == nil {
		baseURL = u.Redacted()
	}
	dirs := c.ToolsDirs
	if dirs == nil {
		dirs = defaultDirs
	}
	models := c.Models
	if models == nil {
		models = []string{}
	}
	return []Row{
		{Key: "profile", Value: c.Profile, Src: c.Source("profile")},
		{Key: "model", Value: c.Model, Src: c.Source("model")},
		{Key: "provider", Value: provider, Src: c.Source("provider")},
		{Key: "base_url", Value: baseURL, Src: baseSrc},
		{Key: "tools_dirs", Value: dirs, Src: c.Source("tools_dirs"), Path: true},
		{Key: "max_steps", Value: c.MaxSteps, Src: c.Source("max_steps")},
		{Key: "parallel", Value: c.Parallel, Src: c.Source("parallel")},
		{Key: "transcript_dir", Value: c.TranscriptDir, Src: c.Source("transcript_dir"), Path: true},
		{Key: "max_retries", Value: c.MaxRetries, Src: c.Source("max_retries")},
		{Key: "timeout", Value: c.Timeout.String(), Src: c.Source("timeout")},
		{Key: "idle_timeout", Value: c.IdleTimeout.String(), Src: c.Source("idle_timeout")},
		{Key: "system", Value: c.System, Src: c.Source("system")},
		{Key: "models", Value: models, Src: c.Source("models")},
		{Key: "max_total_tokens", Value: c.MaxTotalTokens, Src: c.Source("max_total_tokens")},
		{Key: "max_cost", Value: c.MaxCost, Src: c.Source("max_cost")},
		{Key: "context_limit", Value: c.ContextLimit, Src: c.Source("context_limit")},
		{Key: "context_keep", Value: c.ContextKeep, Src: c.Source("context_keep")},
		{Key: "context_keep_tools", Value: orEmpty(c.ContextKeepTools), Src: c.Source("context_keep_tools")},
		{Key: "context_clear_at_least", Value: c.ContextClearAtLeast, Src: c.Source("context_clear_at_least")},
		{Key: "context_editing", Value: c.ContextEditing, Src: c.Source("context_editing")},
		{Key: "mcp_config", Value: orEmpty(c.MCPConfig), Src: c.Source("mcp_config"), Path: true},
		{Key: "mcp_servers", Value: ServerSummaries(c.MCPServers), Src: c.Source("mcp_servers")},
		{Key: "sandbox", Value: string(c.Sandbox), Src: c.Source("sandbox")},
		{Key: "sandbox_required", Value: c.SandboxRequired, Src: c.Source("sandbox_required")},
		{Key: "otel", Value: c.OTel, Src: c.Source("otel")},
		{Key: "schema", Value: c.Schema, Src: c.Source("schema")},
		{Key: "schema_retries", Value: c.SchemaRetries, Src: c.Source("schema_retries")},
		{Key: "schema_mode", Value: c.SchemaMode, Src: c.Source("schema_mode")},
		{Key: "batch_api", Value: c.BatchAPI, Src: c.Source("batch_api")},
	}
}

func orEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// ShowLine is a line of config show's text: a key, its value as shown,
// where it comes from.
type ShowLine struct{ Key, Value, Src string }

// ShowLines are config show's lines of text: the file, each row with its
// secrets redacted, and whether each provider key is set (getenv reads
// them).
func (c *Config) ShowLines(rows []Row, redact *transcript.Redactor, home string, getenv func(string) string) []ShowLine {
	lines := make([]ShowLine, 0, 1+len(rows)+len(CredentialVars))
	file, state := c.FileState(home)
	lines = append(lines, ShowLine{"file", file, state})
	for _, r := range rows {
		lines = append(lines, ShowLine{r.Key, DisplayValue(RedactValue(redact, r.Value), r.Path, home, r.Key == "profile"), r.Src.Describe(home)})
	}
	for _, v := range CredentialVars {
		state := "unset"
		if getenv(v) != "" {
			state = "set"
		}
		lines = append(lines, ShowLine{v, state, SourceEnv})
	}
	return lines
}

// FileState is the configuration file as config show's first line gives
// it: its path, and whether it was read, or why there is none.
func (c *Config) FileState(home string) (path, state string) {
	switch {
	case c.Path == "":
		return "(none)", "no configuration folder: set XDG_CONFIG_HOME or HOME"
	case c.Found:
		return TildePath(c.Path, home), "read"
	}
	return TildePath(c.Path, home), "not there"
}

// RedactValue is a setting's value with every secret in it replaced, part
// by part: redacting the text of a whole list would let a URL's query run
// on into what follows it.
func RedactValue(redact *transcript.Redactor, v any) any {
	switch v := v.(type) {
	case string:
		return redact.RedactString(v)
	case []string:
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = redact.RedactString(s)
		}
		return out
	case []ServerSummary:
		out := make([]ServerSummary, len(v))
		for i, s := range v {
			s.URL = redact.RedactString(s.URL)
			s.Command = RedactValue(redact, s.Command).([]string)
			if len(s.Command) == 0 {
				s.Command = nil
			}
			out[i] = s
		}
		return out
	}
	return v
}

// DisplayValue writes a value for config show's text output.
func DisplayValue(v any, isPath bool, home string, isProfile bool) string {
	tilde := func(s string) string {
		if isPath {
			return TildePath(s, home)
		}
		return s
	}
	switch v := v.(type) {
	case string:
		switch {
		case v == "" && isProfile:
			return "(none)"
		case v == "" || strings.TrimSpace(v) != v || strings.ContainsAny(v, "\n\r\t") || !utf8.ValidString(v):
			return strconv.Quote(v)
		}
		return tilde(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = tilde(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []ServerSummary:
		parts := make([]string, len(v))
		for i, s := range v {
			how := s.URL
			if s.Transport == mcp.Stdio {
				how = strings.Join(s.Command, " ")
			}
			parts[i] = fmt.Sprintf("%s (%s: %s)", s.Name, s.Transport, how)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// ServerSummary is an MCP server as config show prints it: how it is
// reached, never its environment or its headers.
type ServerSummary struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	Command   []string `json:"command,omitempty"`
	URL       string   `json:"url,omitempty"`
	Line      int      `json:"line"`
}

// ServerSummaries are the servers as config show prints them.
func ServerSummaries(cfgs []*mcp.Config) []ServerSummary {
	out := []ServerSummary{}
	for _, c := range cfgs {
		s := ServerSummary{Name: c.Name, Transport: c.Transport(), Command: c.ShownCommand(), Line: c.Line}
		if c.URL != "" {
			s.URL = c.Shown()
		}
		out = append(out, s)
	}
	return out
}

// WritePrices prints the prices: table in effect, a model a line, each
// price as it counts (cached_input and cache_write left out are input's)
// with the line of the file that gives it. On a terminal (tty) names are
// shown, not obeyed, and lines are cut to width.
func (c *Config) WritePrices(w io.Writer, redact *transcript.Redactor, home string, tty bool, width int) error {
	models := c.PricedModels()
	if len(models) == 0 {
		_, err := fmt.Fprintln(w, "\nprices: none (a run's cost is unknown without its model's price; max_cost is refused)")
		return err
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "\nprices, US dollars per million tokens:")
	fmt.Fprintln(tw, "model\tinput\tcached_input\tcache_write\toutput\tbatch_discount\tsource")
	usd := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, m := range models {
		p, src, _ := c.PriceOf(m)
		name := redact.RedactString(m)
		if tty {
			// A model's name comes from the file: shown, not obeyed.
			name = termtext.Display(name, len(name))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s:%d\n", name, usd(p.Input), usd(p.CachedInput), usd(p.CacheWrite), usd(p.Output), usd(c.BatchDiscountOf(m)), src.Describe(home), src.Line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !tty {
		_, err := b.WriteTo(w)
		return err
	}
	for line := range strings.Lines(b.String()) {
		if _, err := fmt.Fprintln(w, termtext.TruncateWidth(strings.TrimSuffix(line, "\n"), width)); err != nil {
			return err
		}
	}
	return nil
}

// SettingJSON is one setting as config show --json prints it.
type SettingJSON struct {
	Value   any    `json:"value"`
	Source  string `json:"source"` // flag, env, file or default
	Flag    string `json:"flag,omitempty"`
	Env     string `json:"env,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Profile string `json:"profile,omitempty"`
}

// ShowJSON is what config show --json prints.
type ShowJSON struct {
	File        string               `json:"file"`
	FileFound   bool                 `json:"file_found"`
	Profiles    []string             `json:"profiles"`
	Settings    orderedSettings      `json:"settings"`
	Prices      map[string]PriceJSON `json:"prices"`
	Credentials map[string]string    `json:"credentials"`
}

// PriceJSON is a model's price in effect, in US dollars per million
// tokens, and the line of the file that gives it.
type PriceJSON struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input"`
	CacheWrite  float64 `json:"cache_write"`
	Output      float64 `json:"output"`
	// BatchDiscount is the fraction a Batch API takes off the prices.
	BatchDiscount float64 `json:"batch_discount"`
	Source        string  `json:"source"`
	File          string  `json:"file"`
	Line          int     `json:"line"`
}

// orderedSettings encode as a JSON object whose keys keep config show's
// order.
type orderedSettings struct {
	keys   []string
	values []SettingJSON
}

func (o orderedSettings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o.values[i]); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Show is what config show --json prints of c and rows, secrets redacted;
// getenv says whether each provider key is set.
func (c *Config) Show(rows []Row, redact *transcript.Redactor, getenv func(string) string) ShowJSON {
	out := ShowJSON{
		File: c.Path, FileFound: c.Found, Profiles: c.Profiles,
		Prices: map[string]PriceJSON{}, Credentials: map[string]string{},
	}
	for _, m := range c.PricedModels() {
		p, src, _ := c.PriceOf(m)
		out.Prices[redact.RedactString(m)] = PriceJSON{Input: p.Input, CachedInput: p.CachedInput, CacheWrite: p.CacheWrite, Output: p.Output,
			BatchDiscount: c.BatchDiscountOf(m), Source: src.Kind, File: src.File, Line: src.Line}
	}
	if out.Profiles == nil {
		out.Profiles = []string{}
	}
	for _, r := range rows {
		sj := SettingJSON{Value: RedactValue(redact, r.Value), Source: r.Src.Kind, File: r.Src.File, Line: r.Src.Line, Profile: r.Src.Profile}
		switch r.Src.Kind {
		case SourceFlag:
			sj.Flag = r.Src.Name
		case SourceEnv:
			sj.Env = r.Src.Name
		}
		out.Settings.keys = append(out.Settings.keys, r.Key)
		out.Settings.values = append(out.Settings.values, sj)
	}
	for _, v := range CredentialVars {
		out.Credentials[v] = "unset"
		if getenv(v) != "" {
			out.Credentials[v] = "set"
		}
	}
	return out
}

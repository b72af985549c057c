package cmd

import (
	"bytes"
	"encoding/json"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/mcp"
)

// settingJSON is one setting as config show --json prints it.
type settingJSON struct {
	Value   any    `json:"value"`
	Source  string `json:"source"` // flag, env, file or default
	Flag    string `json:"flag,omitempty"`
	Env     string `json:"env,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Profile string `json:"profile,omitempty"`
}

// configJSON is what config show --json prints.
type configJSON struct {
	File        string               `json:"file"`
	FileFound   bool                 `json:"file_found"`
	Profiles    []string             `json:"profiles"`
	Settings    orderedSettings      `json:"settings"`
	Prices      map[string]priceJSON `json:"prices"`
	Credentials map[string]string    `json:"credentials"`
}

// priceJSON is a model's price in effect, in US dollars per million
// tokens, and the line of the file that gives it.
type priceJSON struct {
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
	values []settingJSON
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

func writeConfigJSON(ios *IOStreams, cfg *config.Config, rows []configRow) error {
	redact := secrets(ios)
	out := configJSON{
		File: cfg.Path, FileFound: cfg.Found, Profiles: cfg.Profiles,
		Prices: map[string]priceJSON{}, Credentials: map[string]string{},
	}
	for _, m := range cfg.PricedModels() {
		p, src, _ := cfg.PriceOf(m)
		out.Prices[redact.RedactString(m)] = priceJSON{Input: p.Input, CachedInput: p.CachedInput, CacheWrite: p.CacheWrite, Output: p.Output,
			BatchDiscount: cfg.BatchDiscountOf(m), Source: src.Kind, File: src.File, Line: src.Line}
	}
	if out.Profiles == nil {
		out.Profiles = []string{}
	}
	for _, r := range rows {
		sj := settingJSON{Value: redactValue(redact, r.value), Source: r.src.Kind, File: r.src.File, Line: r.src.Line, Profile: r.src.Profile}
		switch r.src.Kind {
		case config.SourceFlag:
			sj.Flag = r.src.Name
		case config.SourceEnv:
			sj.Env = r.src.Name
		}
		out.Settings.keys = append(out.Settings.keys, r.key)
		out.Settings.values = append(out.Settings.values, sj)
	}
	for _, v := range credentialVars {
		out.Credentials[v] = "unset"
		if ios.Getenv(v) != "" {
			out.Credentials[v] = "set"
		}
	}
	return writeJSON(ios, out)
}

// serverSummary is an MCP server as config show prints it: how it is
// reached, never its environment or its headers.
type serverSummary struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	Command   []string `json:"command,omitempty"`
	URL       string   `json:"url,omitempty"`
	Line      int      `json:"line"`
}

func serverSummaries(cfgs []*mcp.Config) []serverSummary {
	out := []serverSummary{}
	for _, c := range cfgs {
		s := serverSummary{Name: c.Name, Transport: c.Transport(), Command: c.ShownCommand(), Line: c.Line}
		if c.URL != "" {
			s.URL = c.Shown()
		}
		out = append(out, s)
	}
	return out
}

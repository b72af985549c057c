package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/yamlpos"
	"github.com/agentloop/agentloop/pkg/agent"
)

// Price is a model's price as the file gives it, and the line of its
// model's name.
type Price struct {
	agent.Price
	// BatchDiscount is the fraction of the price a Batch API takes off
	// (batch_discount, DefaultBatchDiscount unless given).
	BatchDiscount float64
	Line          int
}

// DefaultBatchDiscount is what both providers' Batch APIs take off their
// prices today: half.
const DefaultBatchDiscount = 0.5

// priceFields are the keys of a model's entry in prices:, in US dollars
// per million tokens.
var priceFields = []string{"input", "cached_input", "cache_write", "output", "batch_discount"}

// prices reads the prices: mapping of model names to their prices. input
// and output are required; cached_input and cache_write default to input,
// which overstates a cost rather than understating it.
func (p *fileParser) prices(v *yaml.Node) map[string]Price {
	if yamlpos.IsNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(v, "", "prices: want a mapping of model names to prices, e.g. prices: {gpt-4o-mini: {input: 0.15, cached_input: 0.075, output: 0.60}}")
		return nil
	}
	out := map[string]Price{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], yamlpos.Deref(v.Content[i+1])
		model := kn.Value
		if model == "" || kn.Kind != yaml.ScalarNode {
			p.errorf(kn, "", "prices: an entry needs a model name")
			continue
		}
		if prev, dup := out[model]; dup {
			p.errorf(kn, "", "prices: duplicate model '%s' (first at line %d)", model, prev.Line)
			continue
		}
		if vn.Kind != yaml.MappingNode {
			p.errorf(vn, "", "prices: %s: want a mapping, e.g. {input: 0.15, output: 0.60} (US dollars per million tokens)", model)
			continue
		}
		got := map[string]float64{}
		ok := true
		for j := 0; j+1 < len(vn.Content); j += 2 {
			fk, fv := vn.Content[j], yamlpos.Deref(vn.Content[j+1])
			if !slices.Contains(priceFields, fk.Value) {
				p.errorf(fk, "", "prices: %s: unknown key '%s'%s (want %s)", model, fk.Value, suggest.DidYouMean(fk.Value, priceFields), strings.Join(priceFields, ", "))
				ok = false
				continue
			}
			if _, dup := got[fk.Value]; dup {
				p.errorf(fk, "", "prices: %s: duplicate key '%s'", model, fk.Value)
				ok = false
				continue
			}
			if fv.Kind != yaml.ScalarNode || yamlpos.IsNull(fv) {
				p.errorf(fv, "", "prices: %s: %s: want a number of US dollars per million tokens", model, fk.Value)
				ok = false
				continue
			}
			f, problem := p.number(fk.Value, fv)
			if problem == "" && f.(float64) < 0 {
				problem = fmt.Sprintf("%s %s: a price is 0 or more", fk.Value, fv.Value)
			}
			if problem == "" && fk.Value == "batch_discount" && f.(float64) >= 1 {
				problem = fmt.Sprintf("batch_discount %s: a fraction of the price from 0 to below 1 (0.5: half)", fv.Value)
			}
			if problem != "" {
				p.errorf(fv, "", "prices: %s: %s", model, problem)
				ok = false
				continue
			}
			got[fk.Value] = f.(float64)
		}
		for _, req := range []string{"input", "output"} {
			if _, has := got[req]; !has && ok {
				p.errorf(kn, "", "prices: %s: no %s price", model, req)
				ok = false
			}
		}
		if !ok {
			continue
		}
		pr := agent.Price{Input: got["input"], CachedInput: got["input"], CacheWrite: got["input"], Output: got["output"]}
		if c, has := got["cached_input"]; has {
			pr.CachedInput = c
		}
		if c, has := got["cache_write"]; has {
			pr.CacheWrite = c
		}
		d, has := got["batch_discount"]
		if !has {
			d = DefaultBatchDiscount
		}
		out[model] = Price{Price: pr, BatchDiscount: d, Line: kn.Line}
	}
	return out
}

// PriceOf is the price the file gives a model, exactly as named: a model
// the table does not name has no price (a snapshot or a fine-tune of a
// listed model may cost something else).
func (c *Config) PriceOf(model string) (agent.Price, Source, bool) {
	p, src, ok := c.priceOf(model)
	return p.Price, src, ok
}

// BatchDiscountOf is the fraction of a model's price its Batch API takes
// off: the prices: table's batch_discount, else DefaultBatchDiscount.
func (c *Config) BatchDiscountOf(model string) float64 {
	if p, _, ok := c.priceOf(model); ok {
		return p.BatchDiscount
	}
	return DefaultBatchDiscount
}

func (c *Config) priceOf(model string) (Price, Source, bool) {
	p, ok := c.Prices[model]
	if !ok {
		return Price{}, Source{}, false
	}
	return p, Source{Kind: SourceFile, File: c.Path, Line: p.Line}, true
}

// PricedModels are the models the prices: table names, sorted.
func (c *Config) PricedModels() []string {
	out := make([]string, 0, len(c.Prices))
	for m := range c.Prices {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

package cmd

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentloop/agentloop/internal/config"
)

// writePrices prints the prices: table in effect, a model a line, each
// price as it counts (cached_input and cache_write left out are input's)
// with the line of the file that gives it.
func writePrices(ios *IOStreams, cfg *config.Config, home string) error {
	models := cfg.PricedModels()
	if len(models) == 0 {
		_, err := fmt.Fprintln(ios.Out, "\nprices: none (a run's cost is unknown without its model's price; max_cost is refused)")
		return err
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "\nprices, US dollars per million tokens:")
	fmt.Fprintln(tw, "model\tinput\tcached_input\tcache_write\toutput\tbatch_discount\tsource")
	usd := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	redact := secrets(ios)
	for _, m := range models {
		p, src, _ := cfg.PriceOf(m)
		name := redact.RedactString(m)
		if ios.IsStdoutTTY() {
			// A model's name comes from the file: shown, not obeyed.
			name = displayText(name, len(name))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s:%d\n", name, usd(p.Input), usd(p.CachedInput), usd(p.CacheWrite), usd(p.Output), usd(cfg.BatchDiscountOf(m)), src.Describe(home), src.Line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !ios.IsStdoutTTY() {
		_, err := b.WriteTo(ios.Out)
		return err
	}
	for line := range strings.Lines(b.String()) {
		if _, err := fmt.Fprintln(ios.Out, truncateWidth(strings.TrimSuffix(line, "\n"), ios.Width())); err != nil {
			return err
		}
	}
	return nil
}

package history

import (
	"testing"

	"github.com/agentloop/agentloop/internal/benchgen"
)

// BenchmarkScan lists a folder of 1,000 transcripts of 256 KB each (half
// OpenAI, half Anthropic, every tenth continuing the one before), as
// `agentloop log` does, and as `log --search` does (answers too).
// bench/log.sh does the same with the binary over 10,000 files of 1 MB.
func BenchmarkScan(b *testing.B) {
	dir := b.TempDir()
	if err := benchgen.WriteFolder(dir, 1000, 256<<10, 1); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		opts Options
	}{{"list", Options{}}, {"answers", Options{Answers: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				entries, err := Scan(dir, bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				if len(entries) != 1002 {
					b.Fatalf("%d entries", len(entries))
				}
			}
		})
	}
}

package htmlview

import (
	"bytes"
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/benchgen"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// BenchmarkRender1000Steps draws the page of a 1,000-step run with two or
// three calls a step, tool results of 200 B to 20 KB (about 13 MB of
// transcript).
func BenchmarkRender1000Steps(b *testing.B) {
	for _, shape := range []string{"openai", "anthropic"} {
		b.Run(shape, func(b *testing.B) {
			var src bytes.Buffer
			if err := benchgen.WriteRun(&src, shape, 1000, 1); err != nil {
				b.Fatal(err)
			}
			convs, err := transcript.ReadConversations(bytes.NewReader(src.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			opts := Options{Name: "run.jsonl", Dialect: dialect(shape), Safe: mark}
			var out countingWriter
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				out.n = 0
				if err := Render(context.Background(), &out, convs[0], opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.n)/(1<<20), "MiB-page")
			// On a shared machine the processor time says more than the
			// wall clock.
			b.ReportMetric(float64((cpuTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the processor time the process has used.
func cpuTime() time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)

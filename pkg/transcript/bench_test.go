package transcript_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/agentloop/agentloop/internal/benchgen"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// BenchmarkValidate measures the checker alone over a generated transcript
// held in memory; bench/run.sh measures the command over a file on disk.
func BenchmarkValidate(b *testing.B) {
	for _, shape := range []string{"openai", "anthropic", "claude-code"} {
		b.Run(shape, func(b *testing.B) {
			var buf bytes.Buffer
			if err := benchgen.Write(&buf, shape, 64<<20, 1); err != nil {
				b.Fatal(err)
			}
			data := buf.Bytes()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				st, err := transcript.Validate("bench", bytes.NewReader(data), transcript.Options{}, func(f transcript.Finding) {
					b.Fatalf("unexpected finding: %v", f)
				})
				if err != nil || st.Messages == 0 {
					b.Fatal(err, st)
				}
			}
		})
	}
}

// BenchmarkLineReader is the floor under BenchmarkValidate: reading the
// lines without looking at them.
func BenchmarkLineReader(b *testing.B) {
	var buf bytes.Buffer
	if err := benchgen.Write(&buf, "openai", 64<<20, 1); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		lr := transcript.NewLineReader(bytes.NewReader(data))
		for {
			if _, _, _, err := lr.Next(); err == io.EOF {
				break
			}
		}
	}
}

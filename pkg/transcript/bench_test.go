package transcript_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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
			c0 := cpuTime()
			for b.Loop() {
				st, err := transcript.Validate("bench", bytes.NewReader(data), transcript.Options{}, func(f transcript.Finding) {
					b.Fatalf("unexpected finding: %v", f)
				})
				if err != nil || st.Messages == 0 {
					b.Fatal(err, st)
				}
			}
			// On a shared machine the wall clock counts the time spent
			// waiting for a core: the processor time says what the
			// checker costs.
			b.ReportMetric(float64(len(data))*float64(b.N)/1e6/(cpuTime()-c0).Seconds(), "cpu-MB/s")
		})
	}
}

// BenchmarkValidateRealClaudeCode measures the checker over the real Claude
// Code sessions in testdata/logs, each file in turn, held in memory. Their
// text is what real sessions hold: code and English, with an escape every
// 50 bytes and a character above 0x7f every 100, where the generated log
// has one every 8.
func BenchmarkValidateRealClaudeCode(b *testing.B) {
	names, err := filepath.Glob(filepath.Join("..", "..", "testdata", "logs", "claude-code_*.jsonl"))
	if err != nil || len(names) == 0 {
		b.Fatal("no Claude Code sessions in testdata/logs", err)
	}
	var files [][]byte
	var size int64
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		size += int64(len(data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for b.Loop() {
		for i, data := range files {
			st, err := transcript.Validate(names[i], bytes.NewReader(data), transcript.Options{}, func(transcript.Finding) {})
			if err != nil || st.Messages == 0 {
				b.Fatal(names[i], err, st)
			}
		}
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/(cpuTime()-c0).Seconds(), "cpu-MB/s")
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

// cpuTime is the processor time the process has used.
func cpuTime() time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

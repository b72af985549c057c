package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

var scanSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0.5e+3`, `"a\"b\\c\/\b\f\n\r\t\u00e9\ud83d\ude00"`,
	`{"a":[1,2,{"b":null}]}`, ` { "a" : 1 } `, `{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `"\x01"`, `"\u12"`,
	`{"a" 1}`, `[1 2]`, `"unterminated`, `tru`, `nul`, `{"a":"b"}x`, "\"\xff\xfe\"", `[[[[[[]]]]]]`,
	`"abcdefghijklmnop\"qrstuvwxyz"`, `"` + strings.Repeat("x", 100) + `\u0041"`,
}

// FuzzScan holds the scanner to encoding/json's verdict on every input.
func FuzzScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000)))
	f.Add([]byte(strings.Repeat("[", 10001) + strings.Repeat("]", 10001)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		// Outside strings a valid document is ASCII: text that is not
		// UTF-8 is in a string, and noted there.
		var s Scanner
		s.Reset(data)
		s.Skip()
		s.End()
		if s.Err() != nil {
			return
		}
		bad, sur := s.BadText()
		if !utf8.Valid(data) && bad < 0 {
			t.Fatalf("%q: not UTF-8, but nothing noted", data)
		}
		if bad >= 0 && !sur && utf8.Valid(data) {
			t.Fatalf("%q: UTF-8, but byte %d noted", data, bad)
		}
	})
}

// FuzzUnescape: decoded strings match encoding/json's. Invalid UTF-8 is the
// exception: ids are compared byte for byte, so the checker keeps such bytes
// where encoding/json would put U+FFFD.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`, `"x\u00e9y"`, `"\\\/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want string
		if !utf8.Valid(data) || json.Unmarshal(data, &want) != nil {
			return
		}
		var s Scanner
		s.Reset(data)
		got := s.Text()
		if s.Err() != nil {
			t.Fatalf("%q: %v", data, s.Err())
		}
		if string(got) != want {
			t.Fatalf("%q: got %q, want %q", data, got, want)
		}
	})
}

// The scanner notes the first string byte that is not UTF-8, or the first
// \u escape of half a surrogate pair, and reads on: the document is still
// JSON to encoding/json.
func TestScannerNotesBadText(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		at   int // offset noted, -1 for none
		sur  bool
	}{
		{"ascii", `{"a":"plain text that is long enough for the fast path"}`, -1, false},
		{"two, three and four bytes", "[\"caf\xc3\xa9 \xe2\x98\x80 \xf0\x9f\x98\x80\"]", -1, false},
		{"U+FFFD written out", "[\"\xef\xbf\xbd\"]", -1, false},
		{"surrogate pair", `["\ud83d\ude00 and \uD83D\uDE00"]`, -1, false},
		{"escaped backslash before u", `["\\ud83d"]`, -1, false},
		{"lone byte", "[\"ab\xffcd\"]", 4, false},
		{"continuation byte alone", "[\"\x80\"]", 2, false},
		{"overlong", "[\"\xc0\xaf\"]", 2, false},
		{"encoded surrogate", "[\"x\xed\xa0\x80\"]", 3, false},
		{"above U+10FFFF", "[\"\xf4\x90\x80\x80\"]", 2, false},
		{"cut off before the quote", "[\"\xe2\x98\"]", 2, false},
		{"in a key, after a long run", "{\"abcdefghijklmnop\xfe\":1}", 18, false},
		{"high surrogate alone", `["ab\ud83dcd"]`, 4, true},
		{"high surrogate before another high", `["\ud83d\ud83d\ude00"]`, 2, true},
		{"low surrogate alone", `["\ude00"]`, 2, true},
		{"high surrogate at the end", `["\ud83d"]`, 2, true},
		{"a byte before a surrogate escape", "[\"\xff\\ud83d\"]", 2, false},
		{"first one counts", "[\"\\ude00\", \"\xff\"]", 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s Scanner
			s.Reset([]byte(tc.doc))
			s.Skip()
			s.End()
			if s.Err() != nil {
				t.Fatalf("not JSON to the scanner: %v", s.Err())
			}
			bad, sur := s.BadText()
			if bad != tc.at || (tc.at >= 0 && sur != tc.sur) {
				t.Errorf("noted offset %d (surrogate %v), want %d (%v)", bad, sur, tc.at, tc.sur)
			}
			s.Reset([]byte(tc.doc))
			if bad, _ := s.BadText(); bad >= 0 {
				t.Error("reset keeps what was noted")
			}
		})
	}
}

// Strings long enough for the eight-byte loop, made of pieces that put
// every kind of character and fault at every place in a word, and across
// words: the offset noted is the first fault a character-at-a-time reading
// finds, and the verdict is encoding/json's.
func TestScannerNotesBadTextInWords(t *testing.T) {
	pieces := []string{
		"a", "bc", "defgh", " ", "caf\xc3\xa9", "\xd0\x9c\xd0\xbe", "\xe6\x9d\xb1\xe4\xba\xac", "\xe2\x98\x80",
		"\xf0\x9f\x98\x80", "\xf0\x9f\x8c\xa7\xef\xb8\x8f", "\xe0\xa4\x85", "\xed\x95\x9c", "\xf4\x8f\xbf\xbf",
		"\xc2\x80", "\xdf\xbf", "\xef\xbf\xbd", "\xee\x80\x80", `\n`, `\"`, `\\`, `\u00e9`, `\u003c`,
		`\ud83d\ude00`,
	}
	faults := []string{
		"\xff", "\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xc3", "\xe2\x98", "\xe0\x80\x80", "\xe0\x9f\xbf",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
		"\xf8\x88\x80\x80\x80", "\xf0\x9f\x98", "\xc3\xc3\xa9", "\xe6\x9d\xe4\xba\xac", `\ud83d`, `\ude00`,
		`\ud83d\ud83d`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		b.WriteString(`["`)
		b.WriteString(strings.Repeat("x", r.IntN(8)))
		strs := 1 + r.IntN(3)
		for k := 0; k < strs; k++ {
			if k > 0 {
				b.WriteString(`", "`)
			}
			for p := r.IntN(24); p > 0; p-- {
				if r.IntN(40) == 0 {
					b.WriteString(faults[r.IntN(len(faults))])
				} else {
					b.WriteString(pieces[r.IntN(len(pieces))])
				}
			}
		}
		b.WriteString(`"]`)
		doc := b.String()
		var s Scanner
		s.Reset([]byte(doc))
		s.Skip()
		s.End()
		if got, want := s.Err() == nil, json.Valid([]byte(doc)); got != want {
			t.Fatalf("%q: valid %v, encoding/json says %v", doc, got, want)
		}
		bad, sur := s.BadText()
		wantAt, wantSur := firstBadText(doc)
		if bad != wantAt || (bad >= 0 && sur != wantSur) {
			t.Fatalf("%q: noted %d (surrogate %v), want %d (%v)", doc, bad, sur, wantAt, wantSur)
		}
	}
}

// firstBadText is the offset of the first byte of doc that is not UTF-8, or
// of the first \u escape of half a surrogate pair (sur), read a character at
// a time; -1 when there is none. doc is ASCII outside its strings.
func firstBadText(doc string) (at int, sur bool) {
	for i := 0; i < len(doc); {
		if doc[i] == '\\' {
			if doc[i+1] != 'u' {
				i += 2
				continue
			}
			r, _ := strconv.ParseUint(doc[i+2:i+6], 16, 16)
			if utf16.IsSurrogate(rune(r)) {
				if r < 0xdc00 && strings.HasPrefix(doc[i+6:], `\u`) {
					if r2, _ := strconv.ParseUint(doc[i+8:i+12], 16, 16); 0xdc00 <= r2 && r2 < 0xe000 {
						i += 12
						continue
					}
				}
				return i, true
			}
			i += 6
			continue
		}
		r, n := utf8.DecodeRuneInString(doc[i:])
		if r == utf8.RuneError && n == 1 {
			return i, false
		}
		i += n
	}
	return -1, false
}

// BenchmarkScanRealSessions scans each line of the real Claude Code
// sessions in testdata/logs, as the checker does before anything else: on
// a shared machine, cpu-MB/s (processor time) says more than the wall
// clock.
func BenchmarkScanRealSessions(b *testing.B) {
	names, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "testdata", "logs", "claude-code_*.jsonl"))
	if err != nil || len(names) == 0 {
		b.Fatal("no Claude Code sessions in testdata/logs", err)
	}
	var lines [][]byte
	var size int64
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		size += int64(len(data))
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
	}
	b.SetBytes(size)
	var s Scanner
	c0 := cpuTime()
	for b.Loop() {
		for _, line := range lines {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			s.Reset(line)
			s.Skip()
			s.End()
			if s.Err() != nil {
				b.Fatalf("%.80q: %v", line, s.Err())
			}
		}
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/(cpuTime()-c0).Seconds(), "cpu-MB/s")
}

// cpuTime is the processor time the process has used.
func cpuTime() time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

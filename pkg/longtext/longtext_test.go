package longtext

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// pieces of text that make decoding hard: escapes, multi-byte characters,
// surrogate pairs (valid, lone, reversed), bytes that are not UTF-8.
var hard = []string{
	`a`, `b c`, `\n`, `\t`, `\"`, `\\`, `\/`, `\b\f\r`, `\u0041`, `\u00e9`, `\u20ac`,
	`\ud83d\ude00`, `\uD83D\uDE00`, `\ud800`, `\udc00`, `\udc00\ud800`, `\ud800x`, `\ud800\u0041`,
	`\u001b[31m`, `\u202e`, "é", "€", "😀", "\xff", "\xe2\x82", "\xed\xa0\x80", "日本語",
}

func randomBody(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(hard[r.IntN(len(hard))])
	}
	return b.String()
}

// lines are records of every shape whose texts a Filter takes out, and
// strings it must leave.
func lines(body string) []string {
	return []string{
		`{"type":"message","seq":1,"message":{"role":"user","content":"` + body + `"}}`,
		`{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"` + body + `"},{"type":"tool_use","id":"x","name":"f","input":{"text":"` + body + `"}}]}}`,
		`{"type":"message","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"` + body + `"},{"type":"tool_result","tool_use_id":"y","content":[{"type":"text","text":"` + body + `"}]}]}}`,
		`{"type":"message","message":{"type":"function_call_output","call_id":"c","output":"` + body + `"}}`,
		`{"type":"message","message":{"type":"function_call","call_id":"c","arguments":"` + body + `"}}`,
		`{"type":"result","call_id":"c","content":"` + body + `"}`,
		`{"role":"tool","tool_call_id":"c","content":"{\"error\":\"` + body + `\"}"}`,
		`{"role":"assistant","content":"` + body + `","reasoning_content":"` + body + `"}`,
		`{"deep":[[[[[[[[{"content":"` + body + `"}]]]]]]]]}`,
	}
}

// expand puts back the texts taken out of a decoded JSON value.
func expand(t *testing.T, s *Store, v any) any {
	switch v := v.(type) {
	case string:
		out, err := s.String(v)
		if err != nil {
			t.Fatal(err)
		}
		if s.Len(v) != int64(len(out)) {
			t.Fatalf("Len %d, text %d bytes", s.Len(v), len(out))
		}
		return out
	case map[string]any:
		for k, x := range v {
			v[k] = expand(t, s, x)
		}
	case []any:
		for i, x := range v {
			v[i] = expand(t, s, x)
		}
	}
	return v
}

func TestFilterKeepsEveryText(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 15, 16, 17, 100, 5000, 70000} {
		for _, limit := range []int{16, 1 << 10, 64 << 10} {
			// A text ending in a newline keeps it outside the reference.
			body := randomBody(r, size) + []string{"", `\n`, `\u000A`, `\n\n`}[r.IntN(4)]
			in := strings.Join(lines(body), "\n") + "\n"
			for _, chunk := range []int{7, 64 << 10} {
				readChunk = chunk
				for _, oneByte := range []bool{false, true} {
					var src io.Reader = strings.NewReader(in)
					if oneByte {
						src = iotest.OneByteReader(src)
					}
					f := NewFilter(src, strings.NewReader(in), limit)
					got, err := io.ReadAll(f)
					if err != nil {
						t.Fatal(err)
					}
					gotLines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
					for i, want := range lines(body) {
						var a, b any
						if err := json.Unmarshal([]byte(want), &a); err != nil {
							t.Fatal(err)
						}
						if err := json.Unmarshal([]byte(gotLines[i]), &b); err != nil {
							t.Fatalf("size %d limit %d line %d: %v", size, limit, i, err)
						}
						b = expand(t, f.Store, b)
						aj, _ := json.Marshal(a)
						bj, _ := json.Marshal(b)
						if !bytes.Equal(aj, bj) {
							t.Fatalf("size %d limit %d chunk %d line %d: texts differ", size, limit, chunk, i)
						}
					}
				}
			}
			readChunk = 64 << 10
		}
	}
}

func TestFilterTakesOutOnlyLongTexts(t *testing.T) {
	const limit = 1 << 10
	for _, tc := range []struct {
		name string
		line string
		out  bool
	}{
		{"content at the limit", `{"role":"user","content":"` + strings.Repeat("a", limit) + `"}`, false},
		{"content over the limit", `{"role":"user","content":"` + strings.Repeat("a", limit+1) + `"}`, true},
		{"record content over", `{"type":"message","message":{"role":"user","content":"` + strings.Repeat("a", limit+1) + `"}}`, true},
		{"arguments are kept", `{"type":"function_call","arguments":"` + strings.Repeat("a", limit+1) + `"}`, false},
		{"a key named content is kept", `{"` + strings.Repeat("a", limit+1) + `":"content"}`, false},
		{"an error result is kept", `{"role":"tool","content":"{\"error\":\"` + strings.Repeat("a", limit+1) + `\"}"}`, false},
		{"an error result spelled with escapes is kept", `{"role":"tool","content":"\u007b\"error\":\"` + strings.Repeat("a", limit+1) + `\"}"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFilter(strings.NewReader(tc.line), strings.NewReader(tc.line), limit)
			got, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			if out := len(f.Store.refs) > 0; out != tc.out {
				t.Fatalf("taken out %v, want %v", out, tc.out)
			}
			if !tc.out && string(got) != tc.line {
				t.Fatal("a line with nothing taken out changed")
			}
		})
	}
}

// A broken or torn line stays broken: the reader of the filtered file
// reports it, on the same line.
func TestFilterKeepsBrokenLinesBroken(t *testing.T) {
	long := strings.Repeat("a", 100)
	for _, tc := range []struct{ name, in string }{
		{"torn", `{"role":"user","content":"` + long},
		{"control character", "{\"role\":\"user\",\"content\":\"" + long + "\x01" + long + "\"}\n{\"role\":\"user\",\"content\":\"ok\"}\n"},
		{"newline", "{\"role\":\"user\",\"content\":\"" + long + "\n{\"role\":\"user\",\"content\":\"ok\"}\n"},
		{"bad escape", `{"role":"user","content":"` + long + `\x"}` + "\n" + `{"role":"user","content":"ok"}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFilter(strings.NewReader(tc.in), strings.NewReader(tc.in), 50)
			got, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			inLines, gotLines := strings.Split(tc.in, "\n"), strings.Split(string(got), "\n")
			if len(inLines) != len(gotLines) {
				t.Fatalf("%d lines, want %d: %q", len(gotLines), len(inLines), got)
			}
			for i := range inLines {
				if json.Valid([]byte(inLines[i])) != json.Valid([]byte(gotLines[i])) {
					t.Fatalf("line %d: valid %v, was %v: %q", i+1, json.Valid([]byte(gotLines[i])), json.Valid([]byte(inLines[i])), gotLines[i])
				}
			}
		})
	}
}

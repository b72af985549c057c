package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
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

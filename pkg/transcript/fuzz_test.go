package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
		if got, want := valid(data), json.Valid(data); got != want {
			t.Fatalf("valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		// Outside strings a valid document is ASCII: text that is not
		// UTF-8 is in a string, and noted there.
		var s scanner
		s.reset(data)
		s.skip()
		s.end()
		if s.err != nil {
			return
		}
		if !utf8.Valid(data) && s.bad == 0 {
			t.Fatalf("%q: not UTF-8, but nothing noted", data)
		}
		if s.bad != 0 && !s.badSur && utf8.Valid(data) {
			t.Fatalf("%q: UTF-8, but byte %d noted", data, s.bad-1)
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
		var s scanner
		s.reset(data)
		got := s.text()
		if s.err != nil {
			t.Fatalf("%q: %v", data, s.err)
		}
		if string(got) != want {
			t.Fatalf("%q: got %q, want %q", data, got, want)
		}
	})
}

// FuzzValidate never panics, whatever the input and options.
func FuzzValidate(f *testing.F) {
	for _, tc := range codeCases {
		f.Add([]byte(tc.bad), uint8(0))
		f.Add([]byte(tc.fixed), uint8(1))
	}
	f.Add([]byte(lines(header, rec(1, aUser), rec(2, aCall1))), uint8(2))
	f.Add([]byte("[\n"+oUser+",\n"+oCall1+"\n]"), uint8(3))
	f.Add([]byte("{\"input\":[{\"type\":\"reasoning\",\"id\":\"rs_1\"}]}"), uint8(4))
	f.Add([]byte("{\n \"status\": 400,\n \"request\": {\"messages\": ["+aUser+","+aCall1+"]}\n}\n"), uint8(0))
	f.Add([]byte(`{"custom_id":"r1","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[`+oUser+`,`+oCall1+`]}}`+"\n"+`{"status":400,"request":{"messages":[`+aUser+`]}}`), uint8(0))
	for _, lf := range logFiles {
		if data, err := os.ReadFile(filepath.Join(logsDir, lf.file)); err == nil && len(data) < 64<<10 {
			f.Add(data, uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opts := Options{
			Input:        append([]string{""}, Inputs...)[int(mode)%(len(Inputs)+1)],
			Shape:        []string{"", "openai", "anthropic"}[(mode/5)%3],
			AllowPending: mode&0x40 != 0,
			MaxLine:      map[bool]int{true: 64}[mode&0x20 != 0],
			Tools:        map[bool]ToolChecker{true: fakeTools{}, false: nil}[mode&0x80 != 0],
		}
		var n int
		st, err := Validate("f", bytes.NewReader(data), opts, func(f Finding) {
			n++
			if f.Code == "" || f.Message == "" {
				t.Fatalf("empty finding %+v", f)
			}
			if _, ok := LookupCode(f.Code); !ok {
				t.Fatalf("finding with unlisted code %q", f.Code)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if st.Errors+st.Warnings != n {
			t.Fatalf("stats count %d findings, %d emitted", st.Errors+st.Warnings, n)
		}
	})
}

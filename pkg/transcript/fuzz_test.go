package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

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
	for _, tc := range shapeCases {
		f.Add([]byte(tc.bad), uint8(0))
		f.Add([]byte(tc.fixed), uint8(3))
	}
	f.Add([]byte(`{"sessionId":"s","projectHash":"h"}`+"\n"+`{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"f","args":{},"result":"ok"}]}`+"\n"+`{"$rewindTo":"g1"}`), uint8(0))
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

package transcript

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzTranscriptRead feeds any bytes to the readers replay and resume use.
// They never panic and always end; every line is a record or a
// *LineError, and only the last may be torn; what ReadConversations
// returns is usable. And what validate passes as an agentloop transcript,
// they read: a file validate finds no error in is one replay can load.
func FuzzTranscriptRead(f *testing.F) {
	whole := lines(header, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), rec(4, oDone), end)
	for _, s := range []string{
		whole,
		whole[:len(whole)-7],
		"\xef\xbb\xbf" + strings.ReplaceAll(whole, "\n", "\r\n"),
		lines(header, rec(1, aUser), rec(2, aCall1), rec(3, aRes1)),
		lines(rHeader, rec(1, rUser), rec(2, rRs), rec(3, rCall)+"\n"+rec(4, rOut)[:30]),
		lines(rUser, rRs, rCall, rOut),
		rBody(`"store":false,`, rUser, rRs, rCall, rOut),
		lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), interrupted),
		lines(aHeader, rec(1, aUser), rec(2, aCall12), resultRec("toolu_1"), resultRec("toolu_2"), rec(3, aRes12)),
		lines(oUser, oCall1, oTool1, oDone),
		`{"messages":[` + oUser + `,` + oDone + "]}\n" + `{"messages":[` + oUser + "]}\n",
		"[" + oUser + "," + oCall1 + "]",
		`{"model":"m","system":"s","messages":[` + aUser + `]}`,
		lines(header, `{"type":"message","seq":"1","step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"x"}}`),
		lines(header, `{"type":"end","time":"noon","reason":"stop","steps":1}`),
		lines(header, header),
		strings.Repeat("[", 20000),
		"\x00\xff\n\n{",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		maxLines := bytes.Count(data, []byte("\n")) + 1
		torn := false
		for n := 0; ; n++ {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if n >= maxLines {
				t.Fatalf("more records than lines")
			}
			if torn {
				t.Fatalf("a record after a torn line")
			}
			var le *LineError
			switch {
			case errors.As(err, &le):
				torn = le.Torn
				if le.Line < 1 || le.Error() == "" {
					t.Fatalf("bad LineError %+v", le)
				}
			case err != nil:
				t.Fatalf("Next: %v is not a *LineError", err)
			default:
				set := 0
				for _, p := range []bool{rec.Header != nil, rec.Message != nil, rec.Result != nil, rec.End != nil} {
					if p {
						set++
					}
				}
				if set != 1 || rec.Line < 1 {
					t.Fatalf("record %+v", rec)
				}
			}
		}

		convs, rerr := ReadConversations(bytes.NewReader(data))
		if rerr == nil {
			if len(convs) == 0 {
				t.Fatal("no conversations and no error")
			}
			for _, c := range convs {
				if c.Shape != "openai" && c.Shape != "responses" && c.Shape != "anthropic" {
					t.Fatalf("shape %q", c.Shape)
				}
				if len(c.Messages) == 0 && c.Format != "conversations" {
					t.Fatalf("a %s conversation without messages", c.Format)
				}
				for _, f := range c.Finished {
					if f.CallID == "" {
						t.Fatalf("a finished call without an id: %+v", f)
					}
				}
			}
		}

		// The property replay relies on: a file that opens with a header
		// and validates without error is one it can read.
		first, _, _ := bytes.Cut(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), []byte("\n"))
		if h, err := decodeRecord(bytes.TrimSuffix(first, []byte("\r"))); err != nil || h.Header == nil {
			return
		}
		errs := 0
		st, err := Validate("f", bytes.NewReader(data), Options{AllowPending: true}, func(f Finding) {
			if f.Severity == Error {
				errs++
			}
		})
		if err != nil || errs > 0 || st.Messages == 0 {
			return
		}
		if rerr != nil {
			t.Fatalf("validate passes it, ReadConversations refuses it: %v", rerr)
		}
		// A Responses turn cut by the torn last line is left out whole.
		if len(convs) != 1 || convs[0].Format != "agentloop" || len(convs[0].Messages) > st.Messages ||
			(len(convs[0].Messages) < st.Messages && (convs[0].Torn == nil || convs[0].Shape != "responses")) {
			t.Fatalf("validate counts %d messages; read %d conversation(s): %+v", st.Messages, len(convs), convs[0])
		}
	})
}

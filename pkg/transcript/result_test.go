package transcript

import (
	"bytes"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const (
	oCall12 = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]}`
	oTool2  = `{"role":"tool","tool_call_id":"call_2","content":"rain"}`

	interrupted = `{"type":"end","time":"2026-01-01T00:00:00Z","reason":"interrupted","steps":1}`
)

// Result records hold the results of calls that finished while others of
// their turn ran; the validator checks that each names a call still
// waiting for its result, once, and that the rest of the file agrees.
func TestResultRecords(t *testing.T) {
	tests := []struct {
		name  string
		input string
		opts  Options
		want  []string // codes, in order
		text  string   // a part of the first finding's message
	}{
		{"openai interrupted, pending allowed", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), interrupted),
			Options{AllowPending: true}, nil, ""},
		{"openai interrupted", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), interrupted),
			Options{}, []string{"pending-call"}, "1 of them finished: its result is kept in result records"},
		{"anthropic interrupted, pending allowed", lines(aHeader, rec(1, aUser), rec(2, aCall12), resultRec("toolu_1"), interrupted),
			Options{AllowPending: true}, nil, ""},
		{"anthropic both finished, then killed", lines(aHeader, rec(1, aUser), rec(2, aCall12), resultRec("toolu_1"), resultRec("toolu_2")),
			Options{}, []string{"pending-call"}, "2 of them finished: their results are kept"},
		{"openai answered after its records", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), resultRec("call_1"), rec(3, oTool1), rec(4, oTool2), rec(5, oDone), end),
			Options{}, nil, ""},
		{"openai partly answered, then killed", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), resultRec("call_1"), rec(3, oTool1)),
			Options{AllowPending: true}, nil, ""},
		{"two records for one call", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), resultRec("call_2"), interrupted),
			Options{AllowPending: true}, []string{"stray-result-record"}, "a second result record"},
		{"a record before any call", lines(header, rec(1, oUser), resultRec("call_1"), rec(2, oDone), end),
			Options{}, []string{"stray-result-record"}, "made no call with this id"},
		{"openai record of an earlier turn", lines(header, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), rec(4, oDone), resultRec("call_1"), end),
			Options{}, []string{"stray-result-record"}, "made no call with this id"},
		{"openai record after its tool message", lines(header, rec(1, oUser), rec(2, oCall12), rec(3, oTool1), resultRec("call_1"), rec(4, oTool2), rec(5, oDone), end),
			Options{}, []string{"stray-result-record"}, "already answered"},
		{"anthropic record after the user message that leaves its call out", lines(aHeader, rec(1, aUser), rec(2, aCall12), rec(3, aRes1), resultRec("toolu_2"), interrupted),
			Options{AllowPending: true}, []string{"stray-result-record", "unanswered-call"}, "after the user message"},
		{"record after the end", lines(header, rec(1, oUser), rec(2, oCall12), interrupted, resultRec("call_1")),
			Options{AllowPending: true}, []string{"record-after-end"}, "result record after the end record"},
		{"content not a string", lines(header, rec(1, oUser), rec(2, oCall12), strings.Replace(resultRec("call_1"), `"content":"sunny"`, `"content":5`, 1), interrupted),
			Options{AllowPending: true}, []string{"invalid-record"}, `"content" is a number; want a string`},
		{"no call id", lines(header, rec(1, oUser), rec(2, oCall12), strings.Replace(resultRec("call_1"), `"call_id":"call_1",`, "", 1), interrupted),
			Options{AllowPending: true}, []string{"invalid-record"}, `without a "call_id"`},
		{"call id not a string", lines(header, rec(1, oUser), rec(2, oCall12), strings.Replace(resultRec("call_1"), `"call_id":"call_1"`, `"call_id":1`, 1), interrupted),
			Options{AllowPending: true}, []string{"invalid-record"}, `"call_id" is a number; want a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, _ := validateBytes(t, "t.jsonl", []byte(tt.input), tt.opts)
			var codes []string
			for _, f := range fs {
				codes = append(codes, f.Code)
			}
			if !slices.Equal(codes, tt.want) {
				t.Fatalf("codes %v, want %v:\n%s", codes, tt.want, dump(fs))
			}
			if tt.text != "" && !strings.Contains(fs[0].Message, tt.text) {
				t.Errorf("finding %q does not say %q", fs[0].Message, tt.text)
			}
		})
	}
}

// A conversation read back keeps the result records of the calls of its
// last turn that no message answers, and only those.
func TestReadConversationFinished(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"interrupted", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), interrupted), []string{"call_2"}},
		{"partly answered", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), resultRec("call_1"), rec(3, oTool1)), []string{"call_2"}},
		{"all answered", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), resultRec("call_1"), rec(3, oTool1), rec(4, oTool2), rec(5, oDone), end), nil},
		{"an earlier turn's", lines(header, rec(1, oUser), rec(2, oCall12), resultRec("call_2"), resultRec("call_1"), rec(3, oTool1), rec(4, oTool2),
			rec(5, oCall("call_3", "get_weather", `"{}"`)), resultRec("call_3")), []string{"call_3"}},
		{"anthropic", lines(aHeader, rec(1, aUser), rec(2, aCall12), resultRec("toolu_1"), interrupted), []string{"toolu_1"}},
		{"anthropic answered", lines(aHeader, rec(1, aUser), rec(2, aCall12), resultRec("toolu_1"), rec(3, aRes12)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			convs, err := ReadConversations(strings.NewReader(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range convs[0].Finished {
				got = append(got, f.CallID)
				if f.Content != "sunny" || f.Name != "get_weather" || f.DurationMS != 3 || f.Step != 1 {
					t.Errorf("record %+v", f)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("finished %v, want %v", got, tt.want)
			}
		})
	}
}

// The writer puts a result record on one line that the reader reads back.
func TestResultRecordRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, nil)
	in := CallResult{Step: 2, Result: Result{CallID: "call_1", Name: "mark", ExitCode: 3, DurationMS: 12, IsError: true, Error: "exit"}, Content: "tool exited with code 3"}
	if err := w.WriteResult(in); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte(`{"type":"result","step":2,"time":"`)) || bytes.Count(buf.Bytes(), []byte("\n")) != 1 {
		t.Fatalf("line %s", buf.Bytes())
	}
	r := NewReader(&buf)
	got, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != TypeResult || got.Result == nil {
		t.Fatalf("record %+v", got)
	}
	out := *got.Result
	out.Type, out.Time = "", in.Time
	if !reflect.DeepEqual(out, in) {
		t.Errorf("read back %+v, want %+v", out, in)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the record: %v", err)
	}
	if _, err := NewReader(strings.NewReader(`{"type":"result","step":1,"content":"x"}` + "\n")).Next(); err == nil || !strings.Contains(err.Error(), `without a "call_id"`) {
		t.Errorf("a record without call_id: %v", err)
	}
}

package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestPlaceholder(t *testing.T) {
	for _, tt := range []struct {
		name  string
		bytes int
		want  string
	}{
		{"read_file", 12437, "[cleared to save context: 12.4 KB from read_file; call it again if you need it]"},
		{"ls", 512, "[cleared to save context: 512 B from ls; call it again if you need it]"},
		{"dump", 3_400_000, "[cleared to save context: 3.4 MB from dump; call it again if you need it]"},
	} {
		if got := Placeholder(tt.name, tt.bytes); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
}

func TestPlan(t *testing.T) {
	// Ten results of 4,000 bytes; a token a byte, so the sizes read as
	// tokens (less the placeholder's 80 or so).
	refs := func(names ...string) []ResultRef {
		out := make([]ResultRef, 10)
		for i := range out {
			out[i] = ResultRef{Msg: 2 * (i + 1), CallID: string(rune('a' + i)), Name: "read_file", Bytes: 4000}
		}
		for i, n := range names {
			out[i].Name = n
		}
		return out
	}
	tests := []struct {
		name   string
		policy ContextPolicy
		refs   []ResultRef
		tokens int64
		clear  []int
		fits   bool
	}{
		{"under the limit: nothing", ContextPolicy{Limit: 50000, Keep: 3}, refs(), 45000, nil, true},
		{"over: the oldest first, a batch of a fifth of the limit", ContextPolicy{Limit: 40000, Keep: 3}, refs(), 41000, []int{0, 1, 2}, true},
		{"a batch as asked", ContextPolicy{Limit: 40000, Keep: 3, ClearAtLeast: 1000}, refs(), 41000, []int{0}, true},
		{"a batch as large as needed", ContextPolicy{Limit: 40000, Keep: 3, ClearAtLeast: 1000}, refs(), 50000, []int{0, 1, 2}, true},
		{"never the last Keep", ContextPolicy{Limit: 10000, Keep: 3, ClearAtLeast: 1}, refs(), 45000, []int{0, 1, 2, 3, 4, 5, 6}, false},
		{"Keep 0 clears them all if it must", ContextPolicy{Limit: 10000, Keep: 0, ClearAtLeast: 1}, refs(), 45000, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, true},
		{"never a kept tool", ContextPolicy{Limit: 40000, Keep: 3, KeepTools: []string{"plan"}}, refs("plan", "plan"), 41000, []int{2, 3, 4}, true},
		{"no batch that large: all it may", ContextPolicy{Limit: 40000, Keep: 8, ClearAtLeast: 20000}, refs(), 41000, []int{0, 1}, true},
		{"cannot fit", ContextPolicy{Limit: 1000, Keep: 8}, refs(), 41000, []int{0, 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := tt.policy.Plan(tt.refs, tt.tokens, 1)
			if !reflect.DeepEqual(plan.Clear, tt.clear) || plan.Fits != tt.fits {
				t.Errorf("clear %v fits %v (tokens %d), want clear %v fits %v", plan.Clear, plan.Fits, plan.Tokens, tt.clear, tt.fits)
			}
		})
	}
	t.Run("already cleared and results too small to gain", func(t *testing.T) {
		r := refs()
		r[0].Cleared = true
		r[1].Bytes = 40 // shorter than its placeholder
		plan := (&ContextPolicy{Limit: 40000, Keep: 3, ClearAtLeast: 1}).Plan(r, 41000, 1)
		if !reflect.DeepEqual(plan.Clear, []int{2}) {
			t.Errorf("clear %v, want [2]", plan.Clear)
		}
	})
	t.Run("unread results: after the read ones, and only as far as needed", func(t *testing.T) {
		// Three results read, seven not yet (a turn of many calls).
		unread := func() []ResultRef {
			r := refs()
			for i := 3; i < len(r); i++ {
				r[i].Unread = true
			}
			return r
		}
		p := &ContextPolicy{Limit: 40000, Keep: 1, ClearAtLeast: 20000}
		if plan := p.Plan(unread(), 41000, 1); !reflect.DeepEqual(plan.Clear, []int{0, 1, 2}) || !plan.Fits {
			t.Errorf("a batch made up of read results only: clear %v fits %v, want [0 1 2] true", plan.Clear, plan.Fits)
		}
		if plan := p.Plan(unread(), 55000, 1); !reflect.DeepEqual(plan.Clear, []int{0, 1, 2, 3}) || !plan.Fits {
			t.Errorf("an unread result when the request needs it: clear %v fits %v, want [0 1 2 3] true", plan.Clear, plan.Fits)
		}
		r := unread()
		r[0].Unread, r[1].Unread, r[2].Unread = true, true, true
		r[5].Unread = false
		if plan := p.Plan(r, 45000, 1); !reflect.DeepEqual(plan.Clear, []int{0, 5}) || !plan.Fits {
			t.Errorf("the read one, then the oldest unread, in order: clear %v fits %v, want [0 5] true", plan.Clear, plan.Fits)
		}
	})
	t.Run("off", func(t *testing.T) {
		var p *ContextPolicy
		if plan := p.Plan(refs(), 1<<40, 1); !plan.Fits || plan.Clear != nil {
			t.Errorf("%+v", plan)
		}
	})
}

// Clearing replaces a result's content and leaves every other byte of the
// message as it was: the id, the error flag, the other results.
func TestClearResults(t *testing.T) {
	tests := []struct {
		name    string
		d       Dialect
		msg     string
		id      string
		want    string
		content string // the content's JSON as found
	}{
		{"openai", OpenAIDialect{}, `{"content":"a long result","role":"tool","tool_call_id":"call_1"}`, "call_1",
			`{"content":"[cleared]","role":"tool","tool_call_id":"call_1"}`, `"a long result"`},
		{"openai, parts", OpenAIDialect{}, `{"role":"tool","tool_call_id":"c\u00e9","content":[{"type":"text","text":"x"}]}`, "cé",
			`{"role":"tool","tool_call_id":"c\u00e9","content":"[cleared]"}`, `[{"type":"text","text":"x"}]`},
		{"anthropic, the second of three", AnthropicDialect{}, `{"content":[{"tool_use_id":"t1","content":[{"text":"one","type":"text"}],"type":"tool_result"},{"tool_use_id":"t2","is_error":true,"content":[{"text":"two","type":"text"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}],"type":"tool_result"},{"tool_use_id":"t3","type":"tool_result"}],"role":"user"}`, "t2",
			`{"content":[{"tool_use_id":"t1","content":[{"text":"one","type":"text"}],"type":"tool_result"},{"tool_use_id":"t2","is_error":true,"content":"[cleared]","type":"tool_result"},{"tool_use_id":"t3","type":"tool_result"}],"role":"user"}`,
			`[{"text":"two","type":"text"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]`},
		{"with spaces", OpenAIDialect{}, "{ \"role\" : \"tool\" ,\n \"tool_call_id\" : \"x\", \"content\" : \"c\\\"d\" }", "x",
			"{ \"role\" : \"tool\" ,\n \"tool_call_id\" : \"x\", \"content\" : \"[cleared]\" }", `"c\"d"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := Message(tt.msg)
			var at *ResultContent
			for _, rc := range tt.d.ResultContents(msg) {
				if rc.CallID == tt.id {
					at = &rc
				}
			}
			if at == nil {
				t.Fatalf("no result for %s in %s", tt.id, tt.msg)
			}
			if got := string(msg[at.Start:at.End]); got != tt.content {
				t.Errorf("content %s, want %s", got, tt.content)
			}
			out, err := spliceValues(msg, []span{{at.Start, at.End}}, [][]byte{quoteJSON("[cleared]")})
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("cleared\n %s\nwant\n %s", out, tt.want)
			}
			if !json.Valid(out) {
				t.Errorf("not JSON: %s", out)
			}
		})
	}
	// Messages that answer nothing have no results; bad JSON none either.
	for _, m := range []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"x"}`, `{"role":"tool"`, `[1]`, `{"role":"user","content":[{"type":"text","text":"hi"}]}`} {
		if rc := (OpenAIDialect{}).ResultContents(Message(m)); len(rc) != 0 && !strings.Contains(m, "tool") {
			t.Errorf("openai %s: %+v", m, rc)
		}
		if rc := (AnthropicDialect{}).ResultContents(Message(m)); len(rc) != 0 {
			t.Errorf("anthropic %s: %+v", m, rc)
		}
	}
}

func FuzzResultContents(f *testing.F) {
	f.Add(`{"content":"a","role":"tool","tool_call_id":"call_1"}`)
	f.Add(`{"content":[{"tool_use_id":"t1","content":[{"text":"one","type":"text"}],"type":"tool_result"}],"role":"user"}`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range []Dialect{OpenAIDialect{}, AnthropicDialect{}} {
			for _, rc := range d.ResultContents(Message(s)) {
				if rc.Start < 0 || rc.End > len(s) || rc.Start > rc.End {
					t.Fatalf("span %d–%d of %d bytes", rc.Start, rc.End, len(s))
				}
				if rc.End > rc.Start && json.Valid([]byte(s)) {
					out, err := spliceValues(Message(s), []span{{rc.Start, rc.End}}, [][]byte{quoteJSON("[cleared]")})
					if err != nil || !json.Valid(out) {
						t.Fatalf("splice of valid JSON gave %s (%v)", out, err)
					}
				}
			}
		}
	})
}

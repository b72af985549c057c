package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// mustValidate fails the test on any finding of validate in a transcript.
func mustValidate(t *testing.T, tr []byte) {
	t.Helper()
	if _, err := transcript.Validate("t.jsonl", bytes.NewReader(tr), transcript.Options{}, func(f transcript.Finding) {
		if f.Severity == transcript.Error {
			t.Errorf("validate: %s", f.Message)
		}
	}); err != nil {
		t.Error(err)
	}
}

// providers are the three APIs the loop speaks.
var providers = []string{"openai", "anthropic", "responses"}

// runWith runs a loop against a fake server of a provider, with the
// weather tool defined, and writes a transcript.
func runWith(t *testing.T, provider string, steps []fakeapi.Step, ex agent.Executor, configure func(*agent.Loop)) (*agent.Outcome, []fakeapi.Request, []byte, error) {
	t.Helper()
	p, srv := fakeProvider(t, provider, steps)
	defs, err := p.ToolDefs(weatherDef())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	l := &agent.Loop{Provider: p, Tools: ex, Transcript: w, ToolDefs: defs}
	if configure != nil {
		configure(l)
	}
	if err := w.WriteHeader(transcript.Header{Provider: p.Name(), Model: p.Model(), Tools: defs, Context: policyOf(l)}); err != nil {
		t.Fatal(err)
	}
	out, err := l.Prompt(context.Background(), "Is it warmer in Paris or Dublin right now?")
	if v := srv.(interface{ Check() error }).Check(); v != nil {
		t.Error(v)
	}
	return out, srv.Requests(), buf.Bytes(), err
}

func ptr(s string) *string { return &s }

// policyOf is a loop's clearing policy as a header records it.
func policyOf(l *agent.Loop) *transcript.ContextPolicy {
	p := l.Context
	if p == nil {
		return nil
	}
	return &transcript.ContextPolicy{Limit: p.Limit, Keep: p.Keep, KeepTools: p.KeepTools, ClearAtLeast: p.ClearAtLeast, Editing: "client"}
}

// The last request --max-steps allows asks for an answer without tools,
// after every earlier call is answered: the answer is the run's, and the
// run still ends as the step budget's.
func TestFinalAnswerAtMaxSteps(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			steps := []fakeapi.Step{
				{ToolCalls: []fakeapi.ToolCall{{ID: "a", Name: "get_weather", Arguments: `{"city":"Paris"}`}}, Expect: &fakeapi.Expect{ToolChoice: ptr("")}},
				{ToolCalls: []fakeapi.ToolCall{{ID: "b", Name: "get_weather", Arguments: `{"city":"Dublin"}`}}, Expect: &fakeapi.Expect{ToolChoice: ptr("")}},
				{Text: text("Paris is warmer."), Expect: &fakeapi.Expect{ToolChoice: ptr("none"), Results: map[string]string{"a": "Paris", "b": "Dublin"}}},
			}
			out, reqs, tr, err := runWith(t, provider, steps, weatherTools(), func(l *agent.Loop) { l.MaxSteps = 3 })
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != wire.ReasonMaxSteps || out.Answer != "Paris is warmer." || out.Exhausted != agent.ExhaustedSteps || out.Steps != 3 {
				t.Errorf("outcome %+v", out)
			}
			if len(reqs) != 3 {
				t.Errorf("%d requests, want 3", len(reqs))
			}
			if len(out.Requests) != 3 || !out.Requests[2].Final || out.Requests[1].Final {
				t.Errorf("requests %+v", out.Requests)
			}
			recs := records(t, tr)
			last := recs[len(recs)-2].Message
			if last == nil || last.ToolChoice != "none" || last.RequestBytes != len(reqs[2].Body) {
				t.Errorf("the last turn's record %+v (request of %d bytes)", last, len(reqs[2].Body))
			}
			if end := recs[len(recs)-1].End; end == nil || end.Reason != "max_steps" {
				t.Errorf("end %+v", end)
			}
			mustValidate(t, tr)
		})
	}
}

// --no-final-answer: the run stops after --max-steps calls, with no answer
// and no tool choice ever sent.
func TestNoFinalAnswer(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			steps := []fakeapi.Step{
				{ToolCalls: []fakeapi.ToolCall{{ID: "a", Name: "get_weather", Arguments: `{"city":"Paris"}`}}, Expect: &fakeapi.Expect{ToolChoice: ptr("")}},
				{ToolCalls: []fakeapi.ToolCall{{ID: "b", Name: "get_weather", Arguments: `{"city":"Dublin"}`}}, Expect: &fakeapi.Expect{ToolChoice: ptr("")}},
			}
			out, _, tr, err := runWith(t, provider, steps, weatherTools(), func(l *agent.Loop) { l.MaxSteps, l.NoFinalAnswer = 2, true })
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != wire.ReasonMaxSteps || out.Answer != "" {
				t.Errorf("outcome %+v", out)
			}
			mustValidate(t, tr)
		})
	}
}

// With no tools offered, a tool choice is refused by both APIs: the last
// request does without.
func TestFinalAnswerWithoutTools(t *testing.T) {
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "a", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{Text: text("No tools, no weather."), Expect: &fakeapi.Expect{ToolChoice: ptr("")}},
	}
	out, _, _, err := run(t, steps, weatherTools(), func(l *agent.Loop) { l.MaxSteps = 2 })
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "No tools, no weather." {
		t.Errorf("outcome %+v", out)
	}
}

// The fakes refuse what the APIs refuse around the tool choice.
func TestFakeToolChoiceRules(t *testing.T) {
	post := func(url, body string, header map[string]string) string {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("anthropic-version", "2023-06-01")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	rsp := fakeapi.NewResponses([]fakeapi.Step{{Text: text("x")}}, "")
	defer rsp.Close()
	if got := post(rsp.BaseURL()+"/responses", `{"model":"m","tool_choice":"nothing","input":"hi"}`, nil); !strings.Contains(got, "Supported values are: 'none', 'auto', and 'required'") {
		t.Errorf("responses, a bad tool choice: %s", got)
	}
	oai := fakeapi.NewOpenAI([]fakeapi.Step{{Text: text("x")}}, "")
	defer oai.Close()
	if got := post(oai.BaseURL()+"/chat/completions", `{"model":"m","tool_choice":"none","messages":[{"role":"user","content":"hi"}]}`, nil); !strings.Contains(got, "'tool_choice' is only allowed when 'tools' are specified") {
		t.Errorf("openai without tools: %s", got)
	}
	ant := fakeapi.NewAnthropic([]fakeapi.Step{{Text: text("x")}}, "")
	defer ant.Close()
	history := `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]`
	if got := post(ant.BaseURL()+"/v1/messages", `{"model":"m","max_tokens":10,"tool_choice":{"type":"none"},"messages":`+history+`}`, nil); !strings.Contains(got, "must define tools") {
		t.Errorf("anthropic, tool blocks without tools: %s", got)
	}
	if got := post(ant.BaseURL()+"/v1/messages", `{"model":"m","max_tokens":10,"tool_choice":{"type":"none"},"messages":[{"role":"user","content":"hi"}]}`, nil); !strings.Contains(got, "tool_choice may only be specified while providing tools") {
		t.Errorf("anthropic without tools: %s", got)
	}
	if got := post(ant.BaseURL()+"/v1/messages", `{"model":"m","max_tokens":10,"context_management":{"edits":[]},"messages":[{"role":"user","content":"hi"}]}`, nil); !strings.Contains(got, "context_management: Extra inputs are not permitted") {
		t.Errorf("anthropic context management without the beta header: %s", got)
	}
}

// obedient is a model that calls a tool on every request but the one
// asking for an answer (tool choice none), and counts a token for every
// four bytes of the request, as the fake servers do.
type obedient struct {
	agent.Dialect
	reqs []agent.Request
	// sizes are the request bodies' sizes, as this model counts them.
	sizes []int
}

func (o *obedient) Model() string { return "obedient" }

func (o *obedient) Complete(ctx context.Context, req *agent.Request) (*agent.Turn, error) {
	o.reqs = append(o.reqs, *req)
	size := 200
	for _, m := range req.Messages {
		size += len(m) + 1
	}
	o.sizes = append(o.sizes, size)
	usage := transcript.Usage{InputTokens: int64(size / 4), OutputTokens: 20}
	var msg agent.Message
	if req.ToolChoiceNone {
		msg = agent.Message(`{"role":"assistant","content":"Mild."}`)
	} else {
		id := fmt.Sprintf("call_%d", len(o.reqs))
		msg = agent.Message(`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`)
	}
	t, err := o.ParseAssistant(msg)
	if err != nil {
		return nil, err
	}
	t.Usage, t.RequestBytes = usage, size
	if len(t.Calls) == 0 {
		t.Stop = agent.StopEnd
	}
	return t, nil
}

// bigWeather answers every call with about 3.2 KB.
func bigWeather() *fakeTools {
	big := strings.Repeat("sunny and mild, ", 200)
	return &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"get_weather": func(map[string]any) agent.ToolResult { return agent.ToolResult{Content: big} },
	}}
}

func runObedient(t *testing.T, configure func(*agent.Loop)) (*agent.Outcome, *obedient, []byte) {
	t.Helper()
	m := &obedient{Dialect: agent.OpenAIDialect{}}
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	l := &agent.Loop{Provider: m, Tools: bigWeather(), Transcript: w, MaxSteps: 50}
	configure(l)
	w.WriteHeader(transcript.Header{Provider: "openai", Model: m.Model(), Context: policyOf(l)})
	out, err := l.Prompt(context.Background(), "What is the weather?")
	if err != nil {
		t.Fatal(err)
	}
	mustValidate(t, buf.Bytes())
	return out, m, buf.Bytes()
}

// spent is what a run's requests took, input and output.
func spent(out *agent.Outcome) int64 {
	var n int64
	for _, r := range out.Requests {
		n += r.InputTokens + r.OutputTokens
	}
	return n
}

// A token budget: before each request the loop estimates it from the last
// usage and the bytes added since. The last request that leaves room for
// no other asks for an answer, and the run ends as the budget's, within it.
func TestTokenBudget(t *testing.T) {
	const budget = 10000
	out, m, _ := runObedient(t, func(l *agent.Loop) { l.Budget = &agent.Budget{MaxTotalTokens: budget} })
	if out.Reason != wire.ReasonBudget || out.Exhausted != agent.ExhaustedTokens || out.Answer != "Mild." {
		t.Fatalf("reason %q, exhausted %q, answer %q", out.Reason, out.Exhausted, out.Answer)
	}
	last := m.reqs[len(m.reqs)-1]
	if !last.ToolChoiceNone {
		t.Error("the last request did not ask for an answer")
	}
	for _, r := range m.reqs[:len(m.reqs)-1] {
		if r.ToolChoiceNone {
			t.Error("a request before the last asked for an answer")
		}
	}
	if n := spent(out); n > budget {
		t.Errorf("the run spent %d tokens, over its budget of %d", n, budget)
	}
	// Each request grows by about 820 tokens: the budget holds four.
	if len(m.reqs) < 4 {
		t.Errorf("only %d requests (%d tokens) of a budget of %d", len(m.reqs), spent(out), budget)
	}
}

// A budget too small for even one request sends none.
func TestTokenBudgetTooSmall(t *testing.T) {
	out, m, tr := runObedient(t, func(l *agent.Loop) { l.Budget = &agent.Budget{MaxTotalTokens: 10} })
	if len(m.reqs) != 0 || out.Reason != wire.ReasonBudget || out.Answer != "" || out.Estimate == "" {
		t.Errorf("%d requests, outcome reason %q answer %q estimate %q", len(m.reqs), out.Reason, out.Answer, out.Estimate)
	}
	recs := records(t, tr)
	if end := recs[len(recs)-1].End; end == nil || end.Reason != "budget" {
		t.Errorf("end %+v", end)
	}
}

// Without a last request for an answer, the run stops before the request
// that would be the last.
func TestTokenBudgetNoFinalAnswer(t *testing.T) {
	out, m, _ := runObedient(t, func(l *agent.Loop) {
		l.Budget, l.NoFinalAnswer = &agent.Budget{MaxTotalTokens: 10000}, true
	})
	if out.Reason != wire.ReasonBudget || out.Answer != "" {
		t.Errorf("reason %q, answer %q", out.Reason, out.Answer)
	}
	for _, r := range m.reqs {
		if r.ToolChoiceNone {
			t.Error("a request asked for an answer")
		}
	}
	if n := spent(out); n > 10000 {
		t.Errorf("spent %d", n)
	}
}

// A cost budget, priced per million tokens; the cost of every request is
// known, and so is the run's.
func TestCostBudget(t *testing.T) {
	price := agent.Price{Input: 100, CachedInput: 10, CacheWrite: 100, Output: 400} // dollars a million tokens
	out, m, tr := runObedient(t, func(l *agent.Loop) {
		l.Price, l.Budget = &price, &agent.Budget{MaxCost: 1.00}
	})
	if out.Reason != wire.ReasonBudget || out.Exhausted != agent.ExhaustedCost || out.Answer != "Mild." || !m.reqs[len(m.reqs)-1].ToolChoiceNone {
		t.Fatalf("outcome reason %q exhausted %q answer %q", out.Reason, out.Exhausted, out.Answer)
	}
	if !out.CostKnown || out.Cost > 1.00 || out.Cost < 0.5 {
		t.Errorf("cost %v (known %v), want under $1 and near it", out.Cost, out.CostKnown)
	}
	var sum float64
	for _, r := range out.Requests {
		want := float64(r.InputTokens)*100/1e6 + float64(r.OutputTokens)*400/1e6
		if !r.CostKnown || math.Abs(r.Cost-want) > 1e-9 {
			t.Errorf("step %d cost %v, want %v", r.Step, r.Cost, want)
		}
		sum += r.Cost
	}
	if math.Abs(sum-out.Cost) > 1e-9 {
		t.Errorf("run cost %v, sum of steps %v", out.Cost, sum)
	}
	recs := records(t, tr)
	if end := recs[len(recs)-1].End; end == nil || end.CostUSD == nil || math.Abs(*end.CostUSD-out.Cost) > 1e-9 {
		t.Errorf("end record %+v", end)
	}
}

func TestPriceCost(t *testing.T) {
	p := agent.Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}
	// Anthropic counts cache reads and writes apart from input_tokens.
	ant := p.Cost("anthropic", transcript.Usage{InputTokens: 1000, CacheReadInputTokens: 9000, CacheCreationInputTokens: 2000, OutputTokens: 500})
	if want := (1000*3 + 9000*0.3 + 2000*3.75 + 500*15) / 1e6; math.Abs(ant-want) > 1e-12 {
		t.Errorf("anthropic %v, want %v", ant, want)
	}
	// OpenAI's prompt_tokens hold the cached ones.
	oai := p.Cost("openai", transcript.Usage{InputTokens: 10000, CacheReadInputTokens: 9000, OutputTokens: 500})
	if want := (1000*3 + 9000*0.3 + 500*15) / 1e6; math.Abs(oai-want) > 1e-12 {
		t.Errorf("openai %v, want %v", oai, want)
	}
}

// Each step's cached tokens are read the way each API counts them (Chat
// Completions and Responses within the input tokens, Anthropic apart from
// them) and counted within the request's input.
func TestCachedTokensPerStep(t *testing.T) {
	cached := map[string]map[string]int64{
		"openai":    {"cached_tokens": 64},
		"anthropic": {"cache_read_input_tokens": 64},
		"responses": {"cached_tokens": 64},
	}
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			steps := []fakeapi.Step{
				{ToolCalls: []fakeapi.ToolCall{{ID: "a", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
				{Text: text("Paris is mild."), Usage: cached[provider]},
			}
			out, _, _, err := runWith(t, provider, steps, weatherTools(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Requests) != 2 {
				t.Fatalf("requests %+v", out.Requests)
			}
			first, second := out.Requests[0], out.Requests[1]
			if first.CachedTokens != 0 || second.CachedTokens != 64 || second.InputTokens <= 64 {
				t.Errorf("step 1 %+v; step 2 %+v: want 64 cached tokens within the input of step 2 only", first, second)
			}
		})
	}
}

// --max-steps 1: the only request is the last the budget allows, so it
// asks for an answer at once.
func TestFinalAnswerAtOneStep(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			steps := []fakeapi.Step{{Text: text("From what I know: Paris."), Expect: &fakeapi.Expect{ToolChoice: ptr("none")}}}
			out, reqs, tr, err := runWith(t, provider, steps, weatherTools(), func(l *agent.Loop) { l.MaxSteps = 1 })
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != 1 || out.Answer != "From what I know: Paris." || out.Reason != wire.ReasonMaxSteps || out.Steps != 1 {
				t.Errorf("%d requests, outcome %+v", len(reqs), out)
			}
			mustValidate(t, tr)
		})
	}
}

// Every budget's last request against each API's fake server: the token
// and cost budgets, and a context limit the kept results alone fill. A
// first run (the fake told to play tool calls whatever the tool choice)
// finds the request that asks for an answer; the second scripts the answer
// there, and the server checks that it, and only it, has tool choice none.
func TestBudgetsFinalAnswerEachProvider(t *testing.T) {
	price := agent.Price{Input: 100, Output: 400}
	budgets := []struct {
		name      string
		configure func(*agent.Loop)
		reason    string
		exhausted string
	}{
		{"tokens", func(l *agent.Loop) { l.Budget = &agent.Budget{MaxTotalTokens: 8000} }, wire.ReasonBudget, agent.ExhaustedTokens},
		{"cost", func(l *agent.Loop) { l.Price, l.Budget = &price, &agent.Budget{MaxCost: 0.8} }, wire.ReasonBudget, agent.ExhaustedCost},
		{"context", func(l *agent.Loop) { l.Context = &agent.ContextPolicy{Limit: 4000, Keep: 3} }, wire.ReasonContext, agent.ExhaustedContext},
	}
	calls := func(n int) []fakeapi.Step {
		steps := make([]fakeapi.Step, n)
		for i := range steps {
			steps[i] = fakeapi.Step{ToolCalls: []fakeapi.ToolCall{{ID: fmt.Sprintf("c%02d", i+1), Name: "get_weather", Arguments: `{"city":"Paris"}`}}, IgnoreToolChoice: true}
		}
		return steps
	}
	for _, provider := range providers {
		for _, b := range budgets {
			t.Run(provider+"/"+b.name, func(t *testing.T) {
				configure := func(l *agent.Loop) { l.MaxSteps = 30; b.configure(l) }
				probe, _, _, err := runWith(t, provider, calls(30), bigWeather(), configure)
				if err != nil {
					t.Fatal(err)
				}
				k := len(probe.Requests) - 1
				t.Logf("the request of step %d asks for an answer", k+1)
				if k < 2 || !probe.Requests[k].Final {
					t.Fatalf("the probe's requests %+v", probe.Requests)
				}
				steps := calls(k)
				for i := range steps {
					steps[i].IgnoreToolChoice = false
					steps[i].Expect = &fakeapi.Expect{ToolChoice: ptr("")}
				}
				steps = append(steps, fakeapi.Step{Text: text("Mild, all week."), Expect: &fakeapi.Expect{ToolChoice: ptr("none")}})
				out, reqs, tr, err := runWith(t, provider, steps, bigWeather(), configure)
				if err != nil {
					t.Fatal(err)
				}
				if out.Answer != "Mild, all week." || out.Reason != b.reason || out.Exhausted != b.exhausted || len(reqs) != k+1 {
					t.Errorf("%d requests (want %d), reason %q exhausted %q answer %q", len(reqs), k+1, out.Reason, out.Exhausted, out.Answer)
				}
				switch b.name {
				case "tokens":
					if n := spent(out); n > 8000 {
						t.Errorf("spent %d tokens of 8000", n)
					}
				case "cost":
					if !out.CostKnown || out.Cost > 0.8 {
						t.Errorf("cost %v (known %v) of $0.80", out.Cost, out.CostKnown)
					}
				case "context":
					for _, r := range out.Requests {
						if r.InputTokens > 4000 {
							t.Errorf("step %d: %d input tokens, over the limit", r.Step, r.InputTokens)
						}
					}
				}
				mustValidate(t, tr)
			})
		}
	}
}

// A cost is written as the decimal it is, not with the noise of binary
// floating point: 246 tokens at $0.15 a million cost $0.0000369, which the
// sum of floats makes 0.000036899999999999996.
func TestRoundCost(t *testing.T) {
	p := agent.Price{Input: 0.15, CachedInput: 0.075, Output: 0.6}
	tests := []struct {
		cost float64
		want string
	}{
		{p.Cost("openai", transcript.Usage{InputTokens: 246}), "0.0000369"},
		{0.1 + 0.2, "0.3"},
		{p.Cost("openai", transcript.Usage{InputTokens: 1200, CacheReadInputTokens: 1000, OutputTokens: 33}), "0.0001248"},
		// The finest a four-decimal price gives is kept.
		{agent.Price{Input: 0.0375}.Cost("openai", transcript.Usage{InputTokens: 3}), "1.125e-7"},
		{12.345678901234, "12.3456789012"},
		{0, "0"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(transcript.RoundCost(tt.cost))
		if err != nil || string(b) != tt.want {
			t.Errorf("RoundCost(%v) writes %s, %v; want %s", tt.cost, b, err, tt.want)
		}
	}
}

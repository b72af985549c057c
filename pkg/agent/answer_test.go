package agent_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city","temp"],"additionalProperties":false}`

// answerSpec holds the answer to schema as a run does: sent in the
// shape's form (native), or said in the system prompt.
func answerSpec(t *testing.T, schema string, shape wire.Shape, native bool, retries int) *agent.AnswerSpec {
	t.Helper()
	s, err := answerschema.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	spec := &agent.AnswerSpec{Retries: retries}
	strict := false
	if native {
		w := s.Anthropic()
		if shape.StrictAnswerSchema() {
			w = s.OpenAI()
		}
		if w.Schema == nil {
			t.Fatalf("the schema cannot be sent to %s: %s", shape, w.Why)
		}
		strict = w.Enforced && shape.StrictAnswerSchema()
		spec.Format = &agent.AnswerFormat{Name: s.Name(), Schema: w.Schema, Strict: strict}
	} else {
		spec.Instructions = s.Prompt()
	}
	spec.Check = func(text string) agent.AnswerCheck {
		a := s.Check(text, strict)
		c := agent.AnswerCheck{OK: a.OK(), JSON: a.JSON, Feedback: a.Feedback()}
		for _, p := range a.Problems {
			c.Problems = append(c.Problems, p.String())
		}
		return c
	}
	return spec
}

// runShape runs a loop with the weather tool against a fake server of the
// shape and returns the outcome, the requests and the transcript, which
// must validate.
func runShape(t *testing.T, shape wire.Shape, steps []fakeapi.Step, configure func(*agent.Loop)) (*agent.Outcome, []fakeapi.Request, []byte, error) {
	t.Helper()
	p, srv := fakeProvider(t, string(shape), steps)
	defs, err := p.ToolDefs(weatherDef())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	if err := w.WriteHeader(transcript.Header{Provider: p.Name(), Model: p.Model(), Tools: defs}); err != nil {
		t.Fatal(err)
	}
	l := &agent.Loop{Provider: p, Tools: weatherTools(), Transcript: w, ToolDefs: defs}
	configure(l)
	out, err := l.Prompt(context.Background(), "What is the weather in Paris? Answer as JSON.")
	if v := srv.(interface{ Check() error }).Check(); v != nil {
		t.Error(v)
	}
	mustValidate(t, buf.Bytes())
	return out, srv.Requests(), buf.Bytes(), err
}

func formatKind(s string) *string { return &s }

// toolThenAnswer calls the weather tool, then answers with each of answers
// in turn; ignore marks the answers a constraining server would never
// send.
func toolThenAnswer(answers []string, ignore []bool) []fakeapi.Step {
	steps := []fakeapi.Step{{
		ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		Expect:    &fakeapi.Expect{Format: formatKind("json_schema")},
	}}
	for i, a := range answers {
		steps = append(steps, fakeapi.Step{Text: text(a), IgnoreFormat: ignore[i], Expect: &fakeapi.Expect{Format: formatKind("json_schema")}})
	}
	return steps
}

func TestSchemaAnswerAfterTools(t *testing.T) {
	for _, shape := range wire.Shapes {
		t.Run(string(shape), func(t *testing.T) {
			steps := toolThenAnswer([]string{`{"city":"Paris","temp":21}`}, []bool{false})
			out, _, tr, err := runShape(t, shape, steps, func(l *agent.Loop) {
				l.Answer = answerSpec(t, weatherSchema, shape, true, 1)
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != wire.ReasonStop || out.Checked == nil || !out.Checked.OK {
				t.Fatalf("reason %q, checked %+v", out.Reason, out.Checked)
			}
			if string(out.Checked.JSON) != `{"city":"Paris","temp":21}` {
				t.Errorf("answer JSON %s", out.Checked.JSON)
			}
			if out.Steps != 2 {
				t.Errorf("%d steps, want 2", out.Steps)
			}
			if bytes.Contains(tr, []byte("did not match")) {
				t.Errorf("a matching answer was sent back:\n%s", tr)
			}
		})
	}
}

func TestSchemaWrongThenRight(t *testing.T) {
	for _, shape := range wire.Shapes {
		t.Run(string(shape), func(t *testing.T) {
			steps := toolThenAnswer([]string{`{"city":"Paris","temp":"21"}`, `{"city":"Paris","temp":21}`}, []bool{true, false})
			// The retry's request carries what failed, at its pointer.
			steps[2].Expect.Contains = []string{`/temp: got string, want integer`}
			out, _, tr, err := runShape(t, shape, steps, func(l *agent.Loop) {
				l.Answer = answerSpec(t, weatherSchema, shape, true, 1)
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != wire.ReasonStop || !out.Checked.OK || string(out.Checked.JSON) != `{"city":"Paris","temp":21}` {
				t.Fatalf("reason %q, checked %+v", out.Reason, out.Checked)
			}
			if out.Steps != 3 {
				t.Errorf("%d steps, want 3: the retry is a step", out.Steps)
			}
			answers, feedback := 0, 0
			for _, r := range records(t, tr) {
				if r.Message == nil {
					continue
				}
				role, txt := transcript.MessageText(r.Message.Message)
				switch {
				case role == "assistant" && strings.Contains(txt, `"city"`):
					answers++
				case role == "user" && strings.Contains(txt, "did not match the JSON schema"):
					feedback++
					if r.Message.Step != 2 {
						t.Errorf("the feedback is recorded at step %d, want 2", r.Message.Step)
					}
				}
			}
			if answers != 2 || feedback != 1 {
				t.Errorf("%d answer steps and %d feedback messages, want 2 and 1:\n%s", answers, feedback, tr)
			}
		})
	}
}

func TestSchemaProseTwiceEndsWithReasonSchema(t *testing.T) {
	steps := []fakeapi.Step{
		{Text: text("It is 21 degrees in Paris."), IgnoreFormat: true},
		{Text: text("Sunny, 21 degrees."), IgnoreFormat: true, Expect: &fakeapi.Expect{Contains: []string{"the answer is not JSON"}}},
	}
	out, _, tr, err := runShape(t, wire.Chat, steps, func(l *agent.Loop) {
		l.Answer = answerSpec(t, weatherSchema, wire.Chat, true, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != wire.ReasonSchema || out.Checked == nil || out.Checked.OK {
		t.Fatalf("reason %q, checked %+v", out.Reason, out.Checked)
	}
	if out.Answer != "Sunny, 21 degrees." || out.Checked.JSON != nil {
		t.Errorf("answer %q, JSON %s", out.Answer, out.Checked.JSON)
	}
	recs := records(t, tr)
	end := recs[len(recs)-1].End
	if end == nil || end.Reason != wire.ReasonSchema || !strings.Contains(end.Error, "the answer is not JSON") {
		t.Errorf("end record %+v", end)
	}
}

func TestSchemaNoRetries(t *testing.T) {
	steps := []fakeapi.Step{{Text: text(`{"city":"Paris"}`), IgnoreFormat: true}}
	out, reqs, _, err := runShape(t, wire.Messages, steps, func(l *agent.Loop) {
		l.Answer = answerSpec(t, weatherSchema, wire.Messages, true, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != wire.ReasonSchema || len(reqs) != 1 {
		t.Errorf("reason %q after %d requests", out.Reason, len(reqs))
	}
	if len(out.Checked.Problems) != 1 || out.Checked.Problems[0] != "/temp: missing required property" {
		t.Errorf("problems %q", out.Checked.Problems)
	}
}

// The last request a budget allows carries the schema too, and its answer
// is checked; no request is left to ask again.
func TestSchemaFinalAnswerOfABudget(t *testing.T) {
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{Text: text(`{"city":"Paris","temp":19}`), Expect: &fakeapi.Expect{Format: formatKind("json_schema"), ToolChoice: formatKind("none")}},
	}
	out, _, _, err := runShape(t, wire.Responses, steps, func(l *agent.Loop) {
		l.MaxSteps = 2
		l.Answer = answerSpec(t, weatherSchema, wire.Responses, true, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != wire.ReasonMaxSteps || out.Checked == nil || !out.Checked.OK {
		t.Fatalf("reason %q, checked %+v", out.Reason, out.Checked)
	}
}

// A retry the step budget has no room for ends the run as the budget
// does, the answer checked and not matching.
func TestSchemaRetryPastTheStepBudget(t *testing.T) {
	steps := []fakeapi.Step{{Text: text("21 degrees"), IgnoreFormat: true}}
	out, _, _, err := runShape(t, wire.Chat, steps, func(l *agent.Loop) {
		l.MaxSteps = 1
		l.NoFinalAnswer = true
		l.Answer = answerSpec(t, weatherSchema, wire.Chat, true, 3)
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != wire.ReasonMaxSteps || out.Checked == nil || out.Checked.OK {
		t.Fatalf("reason %q, checked %+v", out.Reason, out.Checked)
	}
}

// In prompt mode no request has a structured output field; the schema is
// in the system prompt, and the answer is checked all the same.
func TestSchemaInThePrompt(t *testing.T) {
	for _, shape := range wire.Shapes {
		t.Run(string(shape), func(t *testing.T) {
			steps := []fakeapi.Step{
				{Text: text("```json\n{\"city\":\"Paris\",\"temp\":21}\n```"), Expect: &fakeapi.Expect{Format: formatKind(""), Contains: []string{"JSON Schema of the final answer"}}},
				{Text: text(`{"city":"Paris","temp":21}`), Expect: &fakeapi.Expect{Format: formatKind(""), Contains: []string{"code fence"}}},
			}
			out, _, _, err := runShape(t, shape, steps, func(l *agent.Loop) {
				l.System = "You are terse."
				l.Answer = answerSpec(t, weatherSchema, shape, false, 1)
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != wire.ReasonStop || !out.Checked.OK {
				t.Fatalf("reason %q, checked %+v", out.Reason, out.Checked)
			}
		})
	}
}

// A turn that calls tools is not an answer: it is not checked, even when
// it says something that is not JSON.
func TestSchemaGovernsTheAnswerOnly(t *testing.T) {
	steps := []fakeapi.Step{
		{Text: text("Let me look that up."), ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{Text: text(`{"city":"Paris","temp":19}`)},
	}
	var checks int
	out, _, _, err := runShape(t, wire.Messages, steps, func(l *agent.Loop) {
		l.Answer = answerSpec(t, weatherSchema, wire.Messages, true, 1)
		l.OnEvent = func(e agent.Event) {
			if e.Kind == agent.EventAnswerCheck {
				checks++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != wire.ReasonStop || checks != 1 {
		t.Errorf("reason %q, %d checks, want stop and 1", out.Reason, checks)
	}
}

// An OpenAI-compatible server that refuses structured output is an error
// that says what to do instead.
func TestSchemaRefusedByTheServer(t *testing.T) {
	for _, server := range []string{"llama.cpp", "vllm", "ollama"} {
		t.Run(server, func(t *testing.T) {
			steps := []fakeapi.Step{{Text: text(`{"city":"Paris","temp":21}`), RefuseFormat: server}}
			_, _, _, err := runShape(t, wire.Chat, steps, func(l *agent.Loop) {
				l.Answer = answerSpec(t, weatherSchema, wire.Chat, true, 1)
			})
			if err == nil || !strings.Contains(err.Error(), "--schema-mode prompt") {
				t.Fatalf("error %v, want one that suggests --schema-mode prompt", err)
			}
		})
	}
}

package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

// roleCounter is a dialect that counts the messages whose role is read.
type roleCounter struct {
	agent.Dialect
	reads *int
}

func (c roleCounter) Role(m agent.Message) string {
	*c.reads++
	return c.Dialect.Role(m)
}

// A conversation run one turn at a time, as replay runs a recording, has
// each message read once, not once a turn: a 1,000-step replay read its
// whole history again at every step.
func TestRunsOfOneConversationReadEachMessageOnce(t *testing.T) {
	for _, d := range []agent.Dialect{agent.OpenAIDialect{}, agent.DialectFor("anthropic"), agent.DialectFor("responses")} {
		t.Run(d.Name(), func(t *testing.T) {
			const steps = 60
			reads := 0
			var turns []*agent.Turn
			for i := range steps {
				id := fmt.Sprintf("call_%d", i)
				var msg agent.Message
				switch d.Name() {
				case "anthropic":
					msg = json.RawMessage(`{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"echo","input":{}}]}`)
				case "responses":
					msg = json.RawMessage(`{"type":"function_call","call_id":"` + id + `","name":"echo","arguments":"{}"}`)
				default:
					msg = json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"echo","arguments":"{}"}}]}`)
				}
				turns = append(turns, &agent.Turn{Messages: []agent.Message{msg}, Calls: []agent.Call{{ID: id, Name: "echo", Arguments: []byte(`{}`)}}, Stop: agent.StopToolUse})
			}
			dialect := roleCounter{Dialect: d, reads: &reads}
			loop := &agent.Loop{Provider: agent.NewScripted(dialect, "m", turns), Tools: okTool{}, MaxSteps: 1, NoFinalAnswer: true, NoEnd: true}
			st := agent.State{Messages: []agent.Message{d.UserMessage("go")}}
			for range steps {
				out, err := loop.Run(context.Background(), st)
				if err != nil {
					t.Fatal(err)
				}
				st = agent.State{Messages: out.Messages, Steps: out.Steps}
			}
			msgs := len(st.Messages)
			if msgs != 1+2*steps {
				t.Fatalf("%d messages, want %d", msgs, 1+2*steps)
			}
			// A few reads a message (the turn's own, its results'), not a
			// number that grows with the conversation.
			if reads > 6*msgs {
				t.Errorf("%d role reads for %d messages run a turn at a time", reads, msgs)
			}
		})
	}
}

type okTool struct{}

func (okTool) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	return agent.ToolResult{Content: "ok"}
}

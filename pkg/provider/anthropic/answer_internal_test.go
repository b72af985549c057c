package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentloop/agentloop/pkg/agent"
)

// output_config is what the SDK's OutputConfigParam reads back.
func TestOutputConfigAsTheSDKReadsIt(t *testing.T) {
	f := &agent.AnswerFormat{Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)}
	var oc anthropic.OutputConfigParam
	if err := json.Unmarshal(outputConfig(f), &oc); err != nil {
		t.Fatal(err)
	}
	if oc.Format.Schema["type"] != "object" || oc.Format.Schema["required"] == nil {
		t.Errorf("output_config read back as %+v", oc)
	}
}

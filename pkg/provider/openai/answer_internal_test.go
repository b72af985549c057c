package openai

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentloop/agentloop/pkg/agent"
)

// The structured output fields are what the SDK's own types read back:
// the name, strict, and the schema's bytes as sent, members in order.
func TestAnswerFormatsAsTheSDKReadsThem(t *testing.T) {
	f := &agent.AnswerFormat{Name: "weather", Schema: json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["z","a"],"additionalProperties":false}`), Strict: true}

	var rf openai.ChatCompletionNewParamsResponseFormatUnion
	if err := json.Unmarshal(chatResponseFormat(f), &rf); err != nil {
		t.Fatal(err)
	}
	js := rf.OfJSONSchema
	if js == nil || js.JSONSchema.Name != "weather" || !js.JSONSchema.Strict.Value {
		t.Fatalf("response_format read back as %+v", rf)
	}
	if b, _ := json.Marshal(js.JSONSchema.Schema); string(b) == "" {
		t.Error("no schema")
	}

	var tc responses.ResponseTextConfigParam
	if err := json.Unmarshal(responsesTextFormat(f), &tc); err != nil {
		t.Fatal(err)
	}
	rs := tc.Format.OfJSONSchema
	if rs == nil || rs.Name != "weather" || !rs.Strict.Value || rs.Schema["type"] != "object" {
		t.Fatalf("text.format read back as %+v", tc.Format)
	}

	f.Strict = false
	var plain struct {
		JSONSchema struct {
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(chatResponseFormat(f), &plain); err != nil || plain.JSONSchema.Strict || string(plain.JSONSchema.Schema) != string(f.Schema) {
		t.Errorf("not strict: %+v %v", plain, err)
	}
}

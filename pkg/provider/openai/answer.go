package openai

import (
	"strconv"

	"github.com/agentloop/agentloop/internal/jsonesc"
	"github.com/agentloop/agentloop/pkg/agent"
)

// Structured output as OpenAI's APIs take it (openai-go v3
// shared.ResponseFormatJSONSchemaParam for Chat Completions,
// responses.ResponseFormatTextJSONSchemaConfigParam for Responses): the
// schema under a name, strict when the schema is in strict form. The
// schema goes as the bytes it was made as, its members in order: in strict
// mode the order of properties is the order of the answer's keys.

// chatResponseFormat is Chat Completions' response_format for f.
func chatResponseFormat(f *agent.AnswerFormat) []byte {
	return schemaFormat(`{"type":"json_schema","json_schema":{`, f)
}

// responsesTextFormat is Responses' text, with its format, for f.
func responsesTextFormat(f *agent.AnswerFormat) []byte {
	return schemaFormat(`{"format":{"type":"json_schema",`, f)
}

// schemaFormat is open, f's name, strictness and schema, and the two
// braces that close open: both APIs' formats nest one object deep.
func schemaFormat(open string, f *agent.AnswerFormat) []byte {
	b := []byte(open + `"name":`)
	b = append(b, quote(f.Name)...)
	b = append(b, `,"strict":`...)
	b = strconv.AppendBool(b, f.Strict)
	b = append(b, `,"schema":`...)
	b = append(b, f.Schema...)
	return append(b, "}}"...)
}

func quote(s string) []byte {
	b, _ := jsonesc.Marshal(s)
	return b
}

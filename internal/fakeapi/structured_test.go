package fakeapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// Every structured output request the real APIs answered passes the
// checks here.
func TestStructuredAcceptsTheCorpus(t *testing.T) {
	checked := 0
	for _, file := range []string{"pydantic-ai-openai.jsonl", "pydantic-ai-responses.jsonl"} {
		f, err := os.Open("../../testdata/corpus/" + file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		line := 0
		for sc.Scan() {
			line++
			var rec struct {
				Status  int `json:"status"`
				Request struct {
					Messages       []json.RawMessage `json:"messages"`
					Input          []json.RawMessage `json:"input"`
					ResponseFormat json.RawMessage   `json:"response_format"`
					Text           json.RawMessage   `json:"text"`
				} `json:"request"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			r := rec.Request
			if rec.Status != 200 || len(r.ResponseFormat) == 0 && !strings.Contains(string(r.Text), "format") {
				continue
			}
			checked++
			if len(r.ResponseFormat) > 0 {
				if f, msg, _ := chatFormat(r.ResponseFormat, r.Messages); msg != "" || f.kind == "" {
					t.Errorf("%s:%d: accepted by the real API, refused here: %s", file, line, msg)
				}
				continue
			}
			if f, gerr := responsesFormat(r.Text, r.Input); gerr != nil || f.kind == "" {
				t.Errorf("%s:%d: accepted by the real API, refused here: %v", file, line, gerr)
			}
		}
		f.Close()
	}
	if checked != 8 {
		t.Errorf("%d records checked, want the corpus's 8", checked)
	}
}

// Strict mode's refusals, with the texts the real API gives (as users
// quoted them: dottxt-ai/outlines#844 and #1666, moeru-ai/xsai#202,
// mavam/pi-web-providers#14, the OpenAI community forum).
func TestStrictSchemaRejectsWithTheRealTexts(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"no additionalProperties", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			"In context=(), 'additionalProperties' is required to be supplied and to be false."},
		{"additionalProperties true", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":true}`,
			"In context=(), 'additionalProperties' is required to be supplied and to be false."},
		{"nested", `{"type":"object","properties":{"etymology":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},"required":["etymology"],"additionalProperties":false}`,
			"In context=('properties', 'etymology'), 'additionalProperties' is required to be supplied and to be false."},
		{"a property not required", `{"type":"object","properties":{"title":{"type":"string"},"location":{"type":"string"}},"required":["title"],"additionalProperties":false}`,
			"In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'location'."},
		{"under anyOf", `{"type":"object","properties":{"result":{"anyOf":[{"type":"object","properties":{"realign":{"type":"object","properties":{"newGoal":{"type":"string"}},"required":[],"additionalProperties":false}},"required":["realign"],"additionalProperties":false}]}},"required":["result"],"additionalProperties":false}`,
			"In context=('properties', 'result', 'anyOf', '0', 'properties', 'realign'), 'required' is required to be supplied and to be an array including every key in properties. Missing 'newGoal'."},
		{"oneOf", `{"type":"object","properties":{"A":{"type":"string"}},"oneOf":[{"required":["A"]}],"additionalProperties":false,"required":["A"]}`,
			"In context=(), 'oneOf' is not permitted."},
		{"$ref beside a description", `{"type":"object","$defs":{"e":{"type":"string"}},"properties":{"events":{"type":"array","items":{"$ref":"#/$defs/e","description":"an event"}}},"required":["events"],"additionalProperties":false}`,
			"In context=('properties', 'events', 'items'), $ref cannot have keywords {'description'}."},
		{"a list at the top", `{"type":"array","items":{"type":"string"}}`,
			`schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`},
		{"no type at the top", `{"properties":{"a":{"type":"string"}}}`,
			`schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`},
		{"in $defs", `{"type":"object","$defs":{"x":{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"],"additionalProperties":false}},"properties":{"a":{"$ref":"#/$defs/x"}},"required":["a"],"additionalProperties":false}`,
			"In context=('$defs', 'x', 'properties', 'a'), 'minLength' is not permitted."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkStrictSchema(json.RawMessage(tt.schema)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	ok := `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"$ref":"#/$defs/b"},{"type":"null"}]}},"$defs":{"b":{"type":"object","properties":{},"required":[],"additionalProperties":false}},"required":["a","b"],"additionalProperties":false}`
	if got := checkStrictSchema(json.RawMessage(ok)); got != "" {
		t.Errorf("a strict schema refused: %s", got)
	}
}

// Anthropic's structured outputs refuse, with the API's texts (as users
// quoted them), what its documentation says it does not support.
func TestAnthropicSchemaRejectsWithTheRealTexts(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"no additionalProperties", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			"For 'object' type, 'additionalProperties' must be explicitly set to false"},
		{"additionalProperties true", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`,
			"For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"},
		{"a map", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},"additionalProperties":false}`,
			"For 'object' type, 'additionalProperties: object' is not supported. Please set 'additionalProperties' to false"},
		{"minimum", `{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"additionalProperties":false}`,
			"For 'integer' type, property 'minimum' is not supported"},
		{"bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":100,"multipleOf":5}},"additionalProperties":false}`,
			"For 'integer' type, properties maximum, minimum, multipleOf are not supported"},
		{"maxItems", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"maxItems":4}},"additionalProperties":false}`,
			"For 'array' type, property 'maxItems' is not supported"},
		{"minProperties", `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"minProperties":1}},"additionalProperties":false}`,
			"For 'object' type, property 'minProperties' is not supported"},
		{"minItems past 1", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"minItems":2},"b":{"type":"array","items":{"type":"string"},"minItems":5}},"additionalProperties":false}`,
			"For 'array' type, 'minItems' values other than 0 or 1 are not supported (got: [2, 5])"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkAnthropicSchema(json.RawMessage(tt.schema)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	ok := `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","format":"uri"},"minItems":1},"b":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`
	if got := checkAnthropicSchema(json.RawMessage(ok)); got != "" {
		t.Errorf("a schema the API takes refused: %s", got)
	}
}

const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city","temp"],"additionalProperties":false}`

func postTo(t *testing.T, url string, header http.Header, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func loadSteps(t *testing.T, script string) []Step {
	t.Helper()
	steps, err := LoadScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// Chat Completions: the scripted answer comes back as the message's
// content; a strict schema is held to strict mode's rules and the answer
// to the schema; json_object wants the word json; a step can play a server
// that does not hold the answer to the schema.
func TestChatStructuredOutput(t *testing.T) {
	format := func(strict bool) string {
		return `"response_format":{"type":"json_schema","json_schema":{"name":"weather","strict":` + map[bool]string{true: "true", false: "false"}[strict] + `,"schema":` + weatherSchema + `}}`
	}
	body := func(extra string) string {
		if extra != "" {
			extra = "," + extra
		}
		return `{"model":"m","messages":[{"role":"user","content":"Weather in Paris?"}]` + extra + `}`
	}
	tests := []struct {
		name, script, body string
		status             int
		contains           string
		violations         int
	}{
		{"a right answer", `[{"json":{"city":"Paris","temp":21},"expect":{"format":"json_schema"}}]`, body(format(true)),
			200, `"content":"{\"city\":\"Paris\",\"temp\":21}"`, 0},
		{"an answer strict mode cannot give", `[{"json":{"city":"Paris","temp":"21"}}]`, body(format(true)), 200, `"content"`, 1},
		{"the same from a server that does not enforce it", `[{"json":{"city":"Paris","temp":"21"},"ignore_format":true}]`, body(format(true)), 200, `"content"`, 0},
		{"not strict: the answer is not held to it", `[{"text":"It is 21 degrees."}]`, body(format(false)), 200, `"content":"It is 21 degrees."`, 0},
		{"a strict schema with an optional property", `[{"text":"{}"}]`,
			body(`"response_format":{"type":"json_schema","json_schema":{"name":"weather","strict":true,"schema":{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city"],"additionalProperties":false}}}`),
			400, `"message":"Invalid schema for response_format 'weather': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'temp'.","param":"response_format","type":"invalid_request_error"`, 1},
		{"a name with a space", `[{"text":"{}"}]`,
			body(`"response_format":{"type":"json_schema","json_schema":{"name":"the weather","schema":{"type":"object"}}}`),
			400, `"Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."`, 1},
		{"no name", `[{"text":"{}"}]`, body(`"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object"}}}`),
			400, `"Missing required parameter: 'response_format.json_schema.name'."`, 1},
		{"json mode without the word", `[{"text":"{}"}]`, body(`"response_format":{"type":"json_object"}`),
			400, `"message":"'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.","param":"messages","type":"invalid_request_error"`, 1},
		{"json mode", `[{"text":"{\"a\":1}","expect":{"format":"json_object"}}]`,
			`{"model":"m","messages":[{"role":"system","content":"Answer in JSON."},{"role":"user","content":"q"}],"response_format":{"type":"json_object"}}`, 200, `"content":"{\"a\":1}"`, 0},
		{"json mode answered with prose", `[{"text":"sure"}]`,
			`{"model":"m","messages":[{"role":"user","content":"Answer in JSON."}],"response_format":{"type":"json_object"}}`, 200, `"content":"sure"`, 1},
		{"an unknown type", `[{"text":"{}"}]`, body(`"response_format":{"type":"yaml"}`),
			400, `"Invalid value: 'yaml'. Supported values are: 'text', 'json_object', and 'json_schema'."`, 1},
		{"a format not expected", `[{"text":"x","expect":{"format":"json_schema"}}]`, body(""), 200, `"content":"x"`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewOpenAI(loadSteps(t, tt.script), "")
			defer s.Close()
			status, got := postTo(t, s.BaseURL()+"/chat/completions", nil, tt.body)
			if status != tt.status || !strings.Contains(got, tt.contains) {
				t.Errorf("%d %s\nwant %d with %s", status, got, tt.status, tt.contains)
			}
			if v := s.Violations(); len(v) != tt.violations {
				t.Errorf("violations %q, want %d", v, tt.violations)
			}
		})
	}
}

// A compatible server that cannot serve a JSON schema answers with its own
// error; a request without one (the schema put in the prompt instead) is
// answered.
func TestChatRefuseFormat(t *testing.T) {
	tests := []struct {
		server string
		status int
		body   string
	}{
		{"llama.cpp", 500, `{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json_schema","type":"server_error"}}`},
		{"vllm", 400, `{"error":{"message":"The provided JSON schema contains features not supported by xgrammar.","type":"BadRequestError","param":null,"code":400}}`},
		{"ollama", 500, `{"error":{"message":"invalid JSON schema in format","type":"api_error","param":null,"code":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			s := NewOpenAI(loadSteps(t, `[{"text":"x","refuse_format":"`+tt.server+`"},{"text":"{\"city\":\"Paris\",\"temp\":21}","refuse_format":"`+tt.server+`"}]`), "")
			defer s.Close()
			status, got := postTo(t, s.BaseURL()+"/chat/completions", nil,
				`{"model":"m","messages":[{"role":"user","content":"q"}],"response_format":{"type":"json_schema","json_schema":{"name":"w","strict":true,"schema":`+weatherSchema+`}}}`)
			if status != tt.status || got != tt.body {
				t.Errorf("%d %s\nwant %d %s", status, got, tt.status, tt.body)
			}
			status, got = postTo(t, s.BaseURL()+"/chat/completions", nil, `{"model":"m","messages":[{"role":"system","content":"Answer with JSON of this schema: ..."},{"role":"user","content":"q"}]}`)
			if status != 200 || !strings.Contains(got, `"content":"{\"city\":\"Paris\",\"temp\":21}"`) {
				t.Errorf("%d %s", status, got)
			}
			if err := s.Check(); err != nil {
				t.Error(err)
			}
		})
	}
	if _, err := LoadScript([]byte(`[{"text":"x","refuse_format":"lmstudio"}]`)); err == nil || !strings.Contains(err.Error(), `refuse_format "lmstudio": want llama.cpp, vllm or ollama`) {
		t.Errorf("LoadScript = %v", err)
	}
	if _, err := LoadScript([]byte(`[{"text":"x","json":{}}]`)); err == nil || !strings.Contains(err.Error(), "a step has text or json, not both") {
		t.Errorf("LoadScript = %v", err)
	}
	if _, err := LoadScript([]byte(`[{"txt":"x"}]`)); err == nil || !strings.Contains(err.Error(), `unknown field "txt"`) {
		t.Errorf("LoadScript = %v", err)
	}
}

// Responses: text.format, with the API's param and code for a schema
// strict mode refuses.
func TestResponsesStructuredOutput(t *testing.T) {
	body := func(format string) string {
		return `{"model":"m","store":false,"input":[{"role":"user","content":"Weather in Paris?"}],"text":{"format":` + format + `}}`
	}
	tests := []struct {
		name, script, body string
		status             int
		contains           string
		violations         int
	}{
		{"a right answer", `[{"json":{"city":"Paris","temp":21},"expect":{"format":"json_schema"}}]`,
			body(`{"type":"json_schema","name":"weather","strict":true,"schema":` + weatherSchema + `}`), 200, `"text":"{\"city\":\"Paris\",\"temp\":21}"`, 0},
		{"a wrong one", `[{"json":{"city":"Paris"}}]`,
			body(`{"type":"json_schema","name":"weather","strict":true,"schema":` + weatherSchema + `}`), 200, `"output_text"`, 1},
		{"a schema strict mode refuses", `[{"text":"{}"}]`,
			body(`{"type":"json_schema","name":"codex_output_schema","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}`),
			400, `{"error":{"code":"invalid_json_schema","message":"Invalid schema for response_format 'codex_output_schema': In context=(), 'additionalProperties' is required to be supplied and to be false.","param":"text.format.schema","type":"invalid_request_error"}}`, 1},
		{"no name", `[{"text":"{}"}]`, body(`{"type":"json_schema","schema":` + weatherSchema + `}`),
			400, `"Missing required parameter: 'text.format.name'."`, 1},
		{"json mode, the word only in the instructions", `[{"text":"{}"}]`,
			`{"model":"m","store":false,"instructions":"Answer in JSON.","input":[{"role":"user","content":"q"}],"text":{"format":{"type":"json_object"}}}`,
			400, `"message":"Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.","param":"text.format","type":"invalid_request_error"`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewResponses(loadSteps(t, tt.script), "")
			defer s.Close()
			status, got := postTo(t, s.BaseURL()+"/responses", nil, tt.body)
			if status != tt.status || !strings.Contains(got, tt.contains) {
				t.Errorf("%d %s\nwant %d with %s", status, got, tt.status, tt.contains)
			}
			if v := s.Violations(); len(v) != tt.violations {
				t.Errorf("violations %q, want %d", v, tt.violations)
			}
		})
	}
}

// Messages: output_config.format, and output_format behind its beta
// header.
func TestAnthropicStructuredOutput(t *testing.T) {
	h := http.Header{"Anthropic-Version": {"2023-06-01"}}
	beta := http.Header{"Anthropic-Version": {"2023-06-01"}, "Anthropic-Beta": {StructuredBeta}}
	body := func(key, schema string) string {
		return `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"Weather in Paris?"}],` + key + `}`
	}
	config := func(schema string) string {
		return `"output_config":{"format":{"type":"json_schema","schema":` + schema + `}}`
	}
	tests := []struct {
		name, script string
		header       http.Header
		body         string
		status       int
		contains     string
		violations   int
	}{
		{"a right answer", `[{"json":{"city":"Paris","temp":21},"expect":{"format":"json_schema"}}]`, h, body(config(weatherSchema), ""),
			200, `"content":[{"text":"{\"city\":\"Paris\",\"temp\":21}","type":"text"}]`, 0},
		{"a wrong one", `[{"json":{"city":"Paris","temp":21.5}}]`, h, body(config(weatherSchema), ""), 200, `"content"`, 1},
		{"a wrong one from a server that does not enforce it", `[{"json":{"city":"Paris","temp":21.5},"ignore_format":true}]`, h, body(config(weatherSchema), ""), 200, `"content"`, 0},
		{"an open object", `[{"text":"{}"}]`, h, body(config(`{"type":"object","properties":{"city":{"type":"string"}}}`), ""),
			400, `"message":"output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"`, 1},
		{"a bound", `[{"text":"{}"}]`, h, body(config(`{"type":"object","properties":{"temp":{"type":"integer","minimum":-90}},"additionalProperties":false}`), ""),
			400, `"output_config.format.schema: For 'integer' type, property 'minimum' is not supported"`, 1},
		{"output_format without its beta", `[{"text":"{}"}]`, h, body(`"output_format":{"type":"json_schema","schema":`+weatherSchema+`}`, ""),
			400, `"output_format: Extra inputs are not permitted"`, 1},
		{"output_format with its beta", `[{"json":{"city":"Paris","temp":21}}]`, beta, body(`"output_format":{"type":"json_schema","schema":`+weatherSchema+`}`, ""),
			200, `"text":"{\"city\":\"Paris\",\"temp\":21}"`, 0},
		{"output_format's own texts", `[{"text":"{}"}]`, beta, body(`"output_format":{"type":"json_schema","schema":{"type":"object","properties":{}}}`, ""),
			400, `"output_format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"`, 1},
		{"not a json_schema", `[{"text":"{}"}]`, h, body(`"output_config":{"format":{"type":"json_object"}}`, ""),
			400, `"output_config.format.type: Input should be 'json_schema'"`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewAnthropic(loadSteps(t, tt.script), "")
			defer s.Close()
			status, got := postTo(t, s.BaseURL()+"/v1/messages", tt.header, tt.body)
			if status != tt.status || !strings.Contains(got, tt.contains) {
				t.Errorf("%d %s\nwant %d with %s", status, got, tt.status, tt.contains)
			}
			if v := s.Violations(); len(v) != tt.violations {
				t.Errorf("violations %q, want %d", v, tt.violations)
			}
		})
	}
}

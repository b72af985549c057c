package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// A streamed message's unmodelled fields: string deltas joined (a
// reasoning_content of many thousand deltas as one string), a value sent
// once kept byte for byte, other values replacing what came before.
func TestExtraAccumulator(t *testing.T) {
	a := extraAccumulator{}
	add := func(k, raw string) { a.add(map[string]respjson.Field{k: respjson.NewField(raw)}) }
	const n = 20000
	for range n {
		add("reasoning_content", `"ab"`)
	}
	add("once", `"caf\u00e9"`)
	add("replaced", `{"x":1}`)
	add("replaced", `"then a string"`)
	add("object", `"a string"`)
	add("object", `{"y":2}`)
	add("skipped", `null`)
	got := a.fields()
	want := map[string]string{
		"reasoning_content": `"` + strings.Repeat("ab", n) + `"`,
		"once":              `"caf\u00e9"`,
		"replaced":          `"then a string"`,
		"object":            `{"y":2}`,
	}
	if len(got) != len(want) {
		t.Errorf("fields %v, want %d of them", got, len(want))
	}
	for k, w := range want {
		if raw, _ := got[k].(json.RawMessage); string(raw) != w {
			t.Errorf("%s = %.60s, want %.60s", k, raw, w)
		}
	}
}

// The errors by which a server says it does not hold the response a
// --store request goes on from: OpenAI's, and a compatible server's other
// words; not another error of the same status.
func TestUnknownPrevious(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  openai.Error
		want bool
	}{
		{"openai", openai.Error{StatusCode: 400, Code: "previous_response_not_found", Param: "previous_response_id", Message: "Previous response with id 'resp_1' not found."}, true},
		{"a proxy's 400 naming the parameter", openai.Error{StatusCode: 400, Param: "previous_response_id", Message: "Invalid `previous_response_id`."}, true},
		{"a server's 404", openai.Error{StatusCode: 404, Type: "not_found_error", Message: "Response resp_1 not found"}, true},
		{"another 400", openai.Error{StatusCode: 400, Param: "input", Message: "Invalid value for 'input'."}, false},
		{"a 500", openai.Error{StatusCode: 500, Message: "Previous response not found in cache"}, false},
	} {
		if got := unknownPrevious(&tt.err); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

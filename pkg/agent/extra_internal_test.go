package agent

import (
	"encoding/json"
	"strings"
	"testing"

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

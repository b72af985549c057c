package transcript

import "testing"

// A finding for text that is not UTF-8 names the line it is on and the
// message it is in, in a pretty-printed body as in JSONL.
func TestInvalidUTF8Location(t *testing.T) {
	body := "{\n  \"model\": \"m\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"},\n    {\"role\": \"assistant\",\n     \"content\": \"ok \xff\"}\n  ]\n}\n"
	fs, _ := validateBytes(t, "b.json", []byte(body), Options{})
	if len(fs) != 1 || fs[0].Code != "invalid-utf8" || fs[0].Line != 6 || fs[0].Index != 1 || fs[0].Path != "messages[1]" {
		t.Fatalf("got:\n%s\nwant one invalid-utf8 at line 6, messages[1]", dump(fs))
	}
	jsonl := lines(oUser, oCall1, "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"\\udc00\"}", oDone)
	fs, _ = validateBytes(t, "t.jsonl", []byte(jsonl), Options{})
	if len(fs) != 1 || fs[0].Code != "invalid-utf8" || fs[0].Line != 3 || fs[0].Index != 2 {
		t.Fatalf("got:\n%s\nwant one invalid-utf8 at line 3, index 2", dump(fs))
	}
}

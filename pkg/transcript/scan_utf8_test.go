package transcript

import "testing"

// The scanner notes the first string byte that is not UTF-8, or the first
// \u escape of half a surrogate pair, and reads on: the document is still
// JSON to encoding/json.
func TestScannerNotesBadText(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		at   int // offset noted, -1 for none
		sur  bool
	}{
		{"ascii", `{"a":"plain text that is long enough for the fast path"}`, -1, false},
		{"two, three and four bytes", "[\"caf\xc3\xa9 \xe2\x98\x80 \xf0\x9f\x98\x80\"]", -1, false},
		{"U+FFFD written out", "[\"\xef\xbf\xbd\"]", -1, false},
		{"surrogate pair", `["\ud83d\ude00 and \uD83D\uDE00"]`, -1, false},
		{"escaped backslash before u", `["\\ud83d"]`, -1, false},
		{"lone byte", "[\"ab\xffcd\"]", 4, false},
		{"continuation byte alone", "[\"\x80\"]", 2, false},
		{"overlong", "[\"\xc0\xaf\"]", 2, false},
		{"encoded surrogate", "[\"x\xed\xa0\x80\"]", 3, false},
		{"above U+10FFFF", "[\"\xf4\x90\x80\x80\"]", 2, false},
		{"cut off before the quote", "[\"\xe2\x98\"]", 2, false},
		{"in a key, after a long run", "{\"abcdefghijklmnop\xfe\":1}", 18, false},
		{"high surrogate alone", `["ab\ud83dcd"]`, 4, true},
		{"high surrogate before another high", `["\ud83d\ud83d\ude00"]`, 2, true},
		{"low surrogate alone", `["\ude00"]`, 2, true},
		{"high surrogate at the end", `["\ud83d"]`, 2, true},
		{"a byte before a surrogate escape", "[\"\xff\\ud83d\"]", 2, false},
		{"first one counts", "[\"\\ude00\", \"\xff\"]", 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s scanner
			s.reset([]byte(tc.doc))
			s.skip()
			s.end()
			if s.err != nil {
				t.Fatalf("not JSON to the scanner: %v", s.err)
			}
			if s.bad-1 != tc.at || (tc.at >= 0 && s.badSur != tc.sur) {
				t.Errorf("noted offset %d (surrogate %v), want %d (%v)", s.bad-1, s.badSur, tc.at, tc.sur)
			}
			s.reset([]byte(tc.doc))
			if s.bad != 0 {
				t.Error("reset keeps what was noted")
			}
		})
	}
}

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

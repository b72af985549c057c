package batch

import (
	"errors"
	"strings"
	"testing"
)

func TestReadInputJSONL(t *testing.T) {
	in := "\xef\xbb\xbf" + `{"id": "a", "prompt": "  first  ", "metadata": {"k": [1, 2]}}` + "\r\n" +
		"\n" +
		`{"id": 17, "prompt": "second", "system": "be brief", "model": "m2", "max_steps": 3, "stdin": "ctx"}` + "\n" +
		`{"prompt": "no id: the line number"}` + "\n" +
		`{"id": 123456789012345678901234567890, "prompt": "a whole number past 64 bits"}`
	items, err := ReadInput(strings.NewReader(in), "in.jsonl", FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 4 {
		t.Fatalf("%d items", len(items))
	}
	if d := items[3]; d.ID != "123456789012345678901234567890" {
		t.Errorf("item 4: %+v", d)
	}
	a, b, c := items[0], items[1], items[2]
	if a.ID != "a" || a.Line != 1 || a.Prompt != "first" || string(a.Metadata) != `{"k": [1, 2]}` {
		t.Errorf("item 1: %+v", a)
	}
	if b.ID != "17" || b.Line != 3 || b.System != "be brief" || b.Model != "m2" || b.MaxSteps != 3 || b.Stdin != "ctx" {
		t.Errorf("item 2: %+v", b)
	}
	if c.ID != "4" || c.Line != 4 {
		t.Errorf("item 3: %+v", c)
	}
}

func TestReadInputText(t *testing.T) {
	in := "What is 2+2?\n\n   \n{not json, a prompt that starts with a brace}\nlast without newline"
	for _, name := range []string{"prompts.txt", "prompts"} {
		items, err := ReadInput(strings.NewReader(in), name, FormatAuto)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "prompts" {
			// Sniffed: the first line does not start with {.
			if len(items) != 3 || items[1].ID != "4" || items[1].Prompt != "{not json, a prompt that starts with a brace}" || items[2].ID != "5" {
				t.Errorf("%s: %+v", name, items)
			}
			continue
		}
		if len(items) != 3 || items[0].ID != "1" || items[0].Prompt != "What is 2+2?" {
			t.Errorf("%s: %+v", name, items)
		}
	}
	// Forced the other way.
	if _, err := ReadInput(strings.NewReader(`{"id":"a","prompt":"p"}`), "x.txt", FormatJSONL); err != nil {
		t.Errorf("--format jsonl on a .txt: %v", err)
	}
	items, err := ReadInput(strings.NewReader(`{"id":"a","prompt":"p"}`), "x.jsonl", FormatText)
	if err != nil || items[0].Prompt != `{"id":"a","prompt":"p"}` {
		t.Errorf("--format text on a .jsonl: %+v %v", items, err)
	}
}

func TestReadInputProblems(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"bad JSON", `{"id": "a", "prompt": "x"}` + "\n" + `{"id": "b", "prompt": }`,
			[]string{`in.jsonl:2: bad JSON: invalid character '}' looking for beginning of value at column 23`}},
		{"cut short", `{"id": "a", "prompt": "x`,
			[]string{`in.jsonl:1: bad JSON: the line ends inside its JSON (column 25)`}},
		{"duplicate id", `{"id": "a", "prompt": "x"}` + "\n" + `{"id": "b", "prompt": "y"}` + "\n" + `{"id": "a", "prompt": "z"}`,
			[]string{`in.jsonl:3: duplicate id "a" (first on line 1)`}},
		{"a number id and the same string", `{"id": 1, "prompt": "x"}` + "\n" + `{"id": "1", "prompt": "y"}`,
			[]string{`in.jsonl:2: duplicate id "1" (first on line 1)`}},
		{"a line number id and an explicit one", `{"id": "2", "prompt": "x"}` + "\n" + `{"prompt": "y"}`,
			[]string{`in.jsonl:2: duplicate id "2" (first on line 1)`}},
		{"empty prompt", `{"id": "a", "prompt": "  "}` + "\n" + `{"id": "b"}`,
			[]string{`in.jsonl:1: empty prompt: "prompt" is missing or blank`, `in.jsonl:2: empty prompt: "prompt" is missing or blank`}},
		{"unknown field", `{"id": "a", "promt": "x"}`,
			[]string{`in.jsonl:1: unknown field "promt" (did you mean 'prompt'?); carry other data in "metadata"`}},
		{"wrong types", `{"id": true, "prompt": "x"}` + "\n" + `{"id": "b", "prompt": 3}` + "\n" + `{"id": "c", "prompt": "x", "max_steps": 0}` + "\n" + `{"id": 1.5, "prompt": "x"}` + "\n" + `{"id": "", "prompt": "x"}` + "\n" + `{"id": 1e3, "prompt": "x"}`,
			[]string{`in.jsonl:1: "id" must be a string or a whole number, got a boolean`, `in.jsonl:2: "prompt" must be a string, got a number`,
				`in.jsonl:3: "max_steps" must be a whole number above 0, got 0`, `in.jsonl:4: "id" must be a string or a whole number, got 1.5`, `in.jsonl:5: "id" is empty`, `in.jsonl:6: "id" must be a string or a whole number, got 1e3`}},
		{"not an object", `{"id":"x","prompt":"y"}` + "\n" + `["a", "b"]` + "\n" + `{"id":"x","prompt":"y"} {"id":"z"}`,
			[]string{`in.jsonl:2: not an item: want an object such as {"id": "a", "prompt": "…"}, got an array`, `in.jsonl:3: bad JSON: more than one value on the line`}},
		{"a JSON array", "\n[\n  {\"id\": \"a\", \"prompt\": \"x\"},\n  {\"id\": \"b\", \"prompt\": \"y\"}\n]\n",
			[]string{`in.jsonl:2: a JSON array, not JSONL: write one item a line (jq -c '.[]' in.jsonl makes it so)`}},
		{"a JSON array on one line", `[{"id": "a", "prompt": "x"}]`,
			[]string{`in.jsonl:1: a JSON array, not JSONL: write one item a line (jq -c '.[]' in.jsonl makes it so)`}},
		{"not text", "{\"id\": \"a\", \"prompt\": \"x\x00\"}\n{\"id\": \"b\", \"prompt\": \"\xff\"}",
			[]string{`in.jsonl:1: not text: NUL byte at column 25`, `in.jsonl:2: not text: the line is not valid UTF-8`}},
		{"a field twice", `{"id": "a", "prompt": "x", "prompt": "y"}` + "\n" + `{"id": "b", "prompt": "x", "metadata": {"k": 1, "k": 2}}`,
			[]string{`in.jsonl:1: "prompt" is given twice: which one is meant is not guessed at`}},
		{"nothing", "\n\n  \n", []string{`in.jsonl:1: no items: the file holds no prompt`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadInput(strings.NewReader(tt.in), "in.jsonl", FormatAuto)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v", err)
			}
			if got := strings.Split(ie.Error(), "\n"); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestReadInputLongLine(t *testing.T) {
	in := `{"id": "a", "prompt": "` + strings.Repeat("x", MaxLine) + `"}` + "\n" + `{"id": "b", "prompt": "fine"}` + "\n"
	_, err := ReadInput(strings.NewReader(in), "in.jsonl", FormatAuto)
	var ie *InputError
	if !errors.As(err, &ie) || len(ie.Problems) != 1 || ie.Problems[0].Line != 1 || !strings.Contains(ie.Problems[0].Msg, "longer than 16 MiB") {
		t.Fatalf("err = %v", err)
	}
}

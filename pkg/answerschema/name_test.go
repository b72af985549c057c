package answerschema

import (
	"path/filepath"
	"strings"
	"testing"
)

// The name a schema is sent under is its title, else its file's name,
// made of what OpenAI takes (^[a-zA-Z0-9_-]{1,64}$); "answer" otherwise.
func TestName(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("Ab", 40)
	tests := []struct{ file, schema, want string }{
		{"", `{"title":"Weather report","type":"object"}`, "Weather_report"},
		{"", `{"title":"  PR review: verdict & findings! ","type":"object"}`, "PR_review_verdict_findings"},
		{"", `{"title":"` + long + `","type":"object"}`, long[:64]},
		{"", `{"title":"résumé","type":"object"}`, "r_sum"},
		{"", `{"title":"!!!","type":"object"}`, "answer"},
		{"review.schema.json", `{"type":"object"}`, "review"},
		{"code review.json", `{"title":"","type":"object"}`, "code_review"},
		{"", `{"type":"object"}`, "answer"},
	}
	for _, tt := range tests {
		var s *Schema
		var err error
		if tt.file != "" {
			s, err = Load(write(t, dir, tt.file, tt.schema))
		} else {
			s, err = FromJSON([]byte(tt.schema), "")
		}
		if err != nil {
			t.Fatal(err)
		}
		got := s.Name()
		if got != tt.want || !validName(got) {
			t.Errorf("%s %s: name %q, want %q", filepath.Base(tt.file), tt.schema, got, tt.want)
		}
	}
	c, err := FromConcise("verdict, score int")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "answer" {
		t.Errorf("concise: %q", c.Name())
	}
}

// validName says what OpenAI takes.
func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"answer": true, "a-b_C9": true, strings.Repeat("x", 64): true,
		"": false, strings.Repeat("x", 65): false, "a b": false, "a.b": false, "é": false,
	} {
		if validName(name) != want {
			t.Errorf("validName(%q) = %v", name, !want)
		}
	}
}

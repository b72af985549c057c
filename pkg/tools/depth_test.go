package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Parameters, and schemas written by hand, nest at most maxDepth levels:
// one level deeper is a load error at the line of the level too deep, and
// a file nesting thousands of levels is refused as quickly.
func TestNestingLimit(t *testing.T) {
	tests := []struct {
		name  string
		depth int
		raw   bool
		want  string
	}{
		{"parameters at the limit", maxDepth - 1, false, ""},
		{"parameters one level too deep", maxDepth, false, "tool.yaml:4: parameter 'leaf': nested more than 64 levels deep (properties: and items: count a level each)"},
		{"parameters thousands of levels deep", 3000, false, "tool.yaml:4: parameter 'p64': nested more than 64 levels deep (properties: and items: count a level each)"},
		{"schema at the limit", maxDepth - 1, true, ""},
		{"schema one level too deep", maxDepth, true, "tool.yaml:4: schema: nested more than 64 levels deep (each schema inside another counts a level)"},
		{"schema thousands of levels deep", 3000, true, "tool.yaml:4: schema: nested more than 64 levels deep (each schema inside another counts a level)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"tool.yaml": nestedTool(tt.depth, tt.raw), "tool.sh": okScript})
			_, err := Load([]string{dir}, Options{Getenv: testEnv(nil)})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				return
			}
			if got := loadErrors(t, err, dir); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
		})
	}
}

// Items count as a level as properties do, and the error names the line
// of the level too deep in a file written in block style.
func TestNestingLimitItems(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: deep\ndescription: d\nrun: tool.sh\nparameters:\n  list:\n")
	ind := "    "
	for range maxDepth - 1 {
		fmt.Fprintf(&b, "%stype: array\n%sitems:\n", ind, ind)
		ind += "  "
	}
	fmt.Fprintf(&b, "%stype: array\n%sitems: {type: string}\n", ind, ind)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tool.yaml": b.String(), "tool.sh": okScript})
	_, err := Load([]string{dir}, Options{Getenv: testEnv(nil)})
	want := fmt.Sprintf("tool.yaml:%d: parameter 'list%s': nested more than 64 levels deep (properties: and items: count a level each)",
		7+2*(maxDepth-1), strings.Repeat("[]", maxDepth))
	if got := loadErrors(t, err, dir); !slices.Equal(got, []string{want}) {
		t.Errorf("errors = %q, want %q", got, want)
	}
}

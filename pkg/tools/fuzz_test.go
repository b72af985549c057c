package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadTool feeds arbitrary bytes to the loader as a tool file. Loading
// must never panic; what loads must have a valid schema that checks
// arguments without panicking either.
func FuzzLoadTool(f *testing.F) {
	for _, seed := range []string{
		weatherYAML,
		weatherYAML + "strict: true\n",
		calcYAML,
		"name: x\ndescription: d\nrun: tool.sh\n",
		"tools:\n  - {name: a, description: d, command: [echo]}\n  - {name: b, description: d, run: tool.sh}\n",
		"name: s\ndescription: d\nrun: tool.sh\nschema:\n  type: object\n  properties:\n    q: {type: string, minLength: 1}\n  required: [q]\n",
		"name: s\ndescription: d\nrun: tool.sh\nstrict: true\nschema: {type: object, properties: {q: {type: [string, 'null']}}, required: [q], additionalProperties: false}\n",
		"name: x\ndescription: d\nrun: tool.sh\nparameters:\n  o: {type: object, required: false, default: {a: 1}, properties: {a: {type: integer}}}\n",
		"name: x\ndescription: d\nrun: tool.sh\nparameters:\n  n: {type: number, enum: [1, 2.5, 1e3], default: 2.5, required: false}\n",
		"a: &a [*a]\n",
		"- - - -\n",
		"name: [x]\ndescription: {a: b}\nrun: 5\ntimeout: -1s\nmax_output: 1e99\n",
		"schema: {$ref: 'file:///etc/passwd'}\nname: x\ndescription: d\nrun: tool.sh\n",
		"name: x\ndescription: d\nrun: tool.sh\nparameters:\n  a: {type: array, items: {type: array, items: {type: object, properties: {b: {type: string}}}}}\n",
		"",
		"---\n---\n",
		"\t\x00\xff",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tool.sh"), []byte(okScript), 0o755); err != nil {
		f.Fatal(err)
	}
	file := filepath.Join(dir, "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Load([]string{file}, Options{Getenv: testEnv(nil)})
		if err != nil {
			return
		}
		for _, d := range r.Definitions() {
			if !json.Valid(d.Parameters) {
				t.Fatalf("%s: parameters are not JSON: %s", d.Name, d.Parameters)
			}
			for _, args := range []string{`{}`, `{"a":1}`, `[]`, `{"q":null}`} {
				_ = r.CheckArgs(d.Name, []byte(args))
			}
		}
	})
}

package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const okScript = "#!/bin/sh\necho ok\n"

func TestLoadErrors(t *testing.T) {
	long := strings.Repeat("a", 65)
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name:  "unknown key with suggestion",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\ndescripton: typo\nrun: ok.sh\n"},
			want:  []string{"x.yaml:3: unknown key 'descripton' (did you mean 'description'?)"},
		},
		{
			name:  "misspelt required key is not also missing",
			files: map[string]string{"x.yaml": "name: x\ndescripton: d\nrun: ok.sh\n"},
			want:  []string{"x.yaml:2: unknown key 'descripton' (did you mean 'description'?)"},
		},
		{
			name:  "unknown key without suggestion",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nflavour: mint\n"},
			want:  []string{"x.yaml:4: unknown key 'flavour'"},
		},
		{
			name:  "key given twice",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nname: y\n"},
			want:  []string{"x.yaml:4: key 'name' given twice (first at line 1)"},
		},
		{
			name:  "missing name",
			files: map[string]string{"x.yaml": "description: d\nrun: ok.sh\n"},
			want:  []string{"x.yaml:1: missing 'name'"},
		},
		{
			name:  "name with a space",
			files: map[string]string{"x.yaml": "name: get weather\ndescription: d\nrun: ok.sh\n"},
			want:  []string{`x.yaml:1: name "get weather": use 1 to 64 letters, digits, '_' or '-'`},
		},
		{
			name:  "name too long",
			files: map[string]string{"x.yaml": "name: " + long + "\ndescription: d\nrun: ok.sh\n"},
			want:  []string{`x.yaml:1: name "` + long + `": use 1 to 64 letters, digits, '_' or '-'`},
		},
		{
			name:  "missing description",
			files: map[string]string{"x.yaml": "name: x\nrun: ok.sh\n"},
			want:  []string{"x.yaml:1: missing 'description': say what the tool does and when the model should use it"},
		},
		{
			name:  "empty description",
			files: map[string]string{"x.yaml": "name: x\ndescription: \"  \"\nrun: ok.sh\n"},
			want:  []string{"x.yaml:2: description is empty: say what the tool does and when the model should use it"},
		},
		{
			name:  "null description",
			files: map[string]string{"x.yaml": "name: x\ndescription:\nrun: ok.sh\n"},
			want:  []string{"x.yaml:2: description is empty: say what the tool does and when the model should use it"},
		},
		{
			name:  "description not text",
			files: map[string]string{"x.yaml": "name: x\ndescription: {}\nrun: ok.sh\n"},
			want:  []string{"x.yaml:2: description: want text, got a mapping"},
		},
		{
			name: "duplicate name across files",
			files: map[string]string{
				"a.yaml": "name: x\ndescription: d\nrun: ok.sh\n",
				"b.yaml": "# the same again\nname: x\ndescription: d\nrun: ok.sh\n",
			},
			want: []string{`b.yaml:2: duplicate tool name "x" (also defined at a.yaml:1)`},
		},
		{
			name:  "duplicate name in one list",
			files: map[string]string{"a.yaml": "tools:\n  - name: x\n    description: d\n    run: ok.sh\n  - name: x\n    description: e\n    run: ok.sh\n"},
			want:  []string{`a.yaml:5: duplicate tool name "x" (also defined at a.yaml:2)`},
		},
		{
			name:  "run and command",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\ncommand: [echo]\n"},
			want:  []string{"x.yaml:4: give either 'run:' (a script) or 'command:' (an argv list), not both"},
		},
		{
			name:  "neither run nor command",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\n"},
			want:  []string{"x.yaml:1: missing 'run:' (a script path relative to this file) or 'command:' (an argv list)"},
		},
		{
			name:  "run script missing",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ./nope.sh\n"},
			want:  []string{"x.yaml:3: run: nope.sh does not exist (paths are relative to the YAML file)"},
		},
		{
			name:  "run is a folder",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: sub\n", "sub/keep": ""},
			want:  []string{"x.yaml:3: run: sub is not a regular file"},
		},
		{
			name:  "run not executable",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: plain.txt\n", "plain.txt": okScript},
			want:  []string{"x.yaml:3: run: plain.txt is not executable; run chmod +x plain.txt"},
		},
		{
			name:  "run without #!",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: bare.sh\n", "bare.sh": "echo ok\n"},
			want:  []string{"x.yaml:3: run: bare.sh has no #! line; start it with one, e.g. #!/bin/sh"},
		},
		{
			name:  "run not a string",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: [a, b]\n"},
			want:  []string{"x.yaml:3: run: want a script path, got a list"},
		},
		{
			name:  "command not a list",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\ncommand: echo hi\n"},
			want:  []string{"x.yaml:3: command: want an argv list such as [jq, -r, .name], run without a shell; for a script use 'run:'"},
		},
		{
			name:  "command empty",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\ncommand: []\n"},
			want:  []string{"x.yaml:3: command: the argv list is empty"},
		},
		{
			name:  "command not on PATH",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\ncommand:\n  - no-such-program-here\n  - -x\n"},
			want:  []string{`x.yaml:4: command: "no-such-program-here" not found on PATH`},
		},
		{
			name:  "command beside the YAML named without ./",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\ncommand: [mine.sh]\n", "mine.sh": "#!/bin/sh\necho hi\n"},
			want:  []string{`x.yaml:3: command: "mine.sh" not found on PATH; for the file beside this YAML write "./mine.sh"`},
		},
		{
			name:  "command path missing",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\ncommand: [./bin/tool, --json]\n"},
			want:  []string{"x.yaml:3: command: bin/tool does not exist (paths are relative to the YAML file)"},
		},
		{
			name:  "timeout not a duration",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\ntimeout: 10\n"},
			want:  []string{`x.yaml:4: timeout: "10" is not a duration; write it like 10s, 2m or 1m30s`},
		},
		{
			name:  "timeout zero",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\ntimeout: 0s\n"},
			want:  []string{"x.yaml:4: timeout: must be more than 0, got 0s"},
		},
		{
			name:  "max_output not a size",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nmax_output: lots\n"},
			want:  []string{`x.yaml:4: max_output: "lots" is not a size; write a number of bytes with an optional unit: 512, 16KiB, 1MB`},
		},
		{
			name:  "max_output past int64",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nmax_output: 8589934592GiB\n"},
			want:  []string{`x.yaml:4: max_output: "8589934592GiB" is too large`},
		},
		{
			name:  "max_output too large",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nmax_output: 1GiB\n"},
			want:  []string{"x.yaml:4: max_output: 1GiB is more than the limit of 64MiB"},
		},
		{
			name:  "env not a list",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nenv: HOME\n"},
			want:  []string{`x.yaml:4: env: want a list of variable names, e.g. [HOME, GITHUB_TOKEN], got "HOME"`},
		},
		{
			name:  "env entries",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nenv:\n  - 1BAD\n  - OPENAI_API_KEY\n  - ANTHROPIC_API_KEY\n  - ARG_CITY\n  - AGENTLOOP_X\n  - HOME\n  - HOME\n"},
			want: []string{
				`x.yaml:5: env: "1BAD" is not a variable name`,
				"x.yaml:6: env: OPENAI_API_KEY is agentloop's own provider credential and is never passed to a tool",
				"x.yaml:7: env: ANTHROPIC_API_KEY is agentloop's own provider credential and is never passed to a tool",
				"x.yaml:8: env: ARG_CITY is reserved: agentloop sets ARG_* and AGENTLOOP_* itself",
				"x.yaml:9: env: AGENTLOOP_X is reserved: agentloop sets ARG_* and AGENTLOOP_* itself",
				"x.yaml:11: env: HOME is listed twice",
			},
		},
		{
			name:  "confirm and strict not booleans",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nconfirm: yes\nstrict: 1\n"},
			want: []string{
				`x.yaml:4: confirm: want true or false, got "yes"`,
				`x.yaml:5: strict: want true or false, got "1"`,
			},
		},
		{
			name: "parameter types",
			files: map[string]string{"x.yaml": `name: x
description: d
run: ok.sh
parameters:
  a: {type: int}
  b: {type: strng}
  c: {type: blob}
  d: {description: no type}
  e: string
`},
			want: []string{
				"x.yaml:5: parameter 'a': unknown type 'int' (did you mean 'integer'?)",
				"x.yaml:6: parameter 'b': unknown type 'strng' (did you mean 'string'?); use one of string, integer, number, boolean, array, object",
				"x.yaml:7: parameter 'c': unknown type 'blob'; use one of string, integer, number, boolean, array, object",
				"x.yaml:8: parameter 'd': missing 'type' (one of string, integer, number, boolean, array, object)",
				`x.yaml:9: parameter 'e': want a mapping such as {type: string, description: ...}, got "string"`,
			},
		},
		{
			name: "parameter keys",
			files: map[string]string{"x.yaml": `name: x
description: d
run: ok.sh
parameters:
  a:
    type: string
    descripton: typo
  b: {type: string, required: maybe}
  "bad name": {type: string}
  c: {type: string, required: !!bool maybe}
`},
			want: []string{
				"x.yaml:7: unknown parameter key 'descripton' (did you mean 'description'?)",
				`x.yaml:8: parameter 'b': required: want true or false, got "maybe"`,
				`x.yaml:9: parameter name "bad name": use 1 to 64 letters, digits, '_' or '-'`,
				`x.yaml:10: parameter 'c': required: want true or false, got "maybe"`,
			},
		},
		{
			name: "arrays and objects",
			files: map[string]string{"x.yaml": `name: x
description: d
run: ok.sh
parameters:
  a: {type: array}
  b: {type: string, items: {type: string}}
  c: {type: object}
  d: {type: string, properties: {x: {type: string}}}
  e: {type: array, items: {type: string, required: false}}
  f: {type: object, properties: {}}
`},
			want: []string{
				"x.yaml:5: parameter 'a': type array needs 'items', e.g. items: {type: string}",
				"x.yaml:6: parameter 'b': 'items' is only for type array",
				"x.yaml:7: parameter 'c': type object needs 'properties'",
				"x.yaml:8: parameter 'd': 'properties' is only for type object",
				"x.yaml:9: parameter 'e[]': 'required' has no meaning for the items of an array",
				"x.yaml:10: parameter 'f': properties: want a non-empty mapping of names to parameter specs",
			},
		},
		{
			name: "enums",
			files: map[string]string{"x.yaml": `name: x
description: d
run: ok.sh
parameters:
  a: {type: string, enum: [c, 1]}
  b: {type: integer, enum: [1, 2.5, "3"]}
  c: {type: string, enum: []}
  d: {type: string, enum: [x, x]}
  e: {type: array, items: {type: string}, enum: [[a]]}
  f: {type: boolean, enum: [true, "no"]}
`},
			want: []string{
				`x.yaml:5: parameter 'a': enum value "1" is not of type string (quote it: "1")`,
				`x.yaml:6: parameter 'b': enum value "2.5" is not of type integer`,
				`x.yaml:6: parameter 'b': enum value "3" is not of type integer`,
				"x.yaml:7: parameter 'c': enum: want a non-empty list of values",
				`x.yaml:8: parameter 'd': enum value "x" is listed twice`,
				"x.yaml:9: parameter 'e': 'enum' is only for string, integer, number and boolean",
				`x.yaml:10: parameter 'f': enum value "no" is not of type boolean`,
			},
		},
		{
			name: "defaults",
			files: map[string]string{"x.yaml": `name: x
description: d
run: ok.sh
parameters:
  a: {type: string, enum: [c, f], default: k, required: false}
  b: {type: integer, default: ten, required: false}
  c: {type: string, default: x}
  d: {type: number, default: 1.5, required: false}
  e: {type: array, items: {type: integer}, default: [1, x], required: false}
  f: {type: boolean, default: .inf, required: false}
`},
			want: []string{
				`x.yaml:5: parameter 'a': default "k" is not one of "c", "f"`,
				"x.yaml:6: parameter 'b': default got string, want integer",
				"x.yaml:7: parameter 'c': a default only applies to an optional parameter; add 'required: false'",
				"x.yaml:9: parameter 'e': default /1: got string, want integer",
				"x.yaml:10: .inf is not a number JSON can hold",
			},
		},
		{
			name: "ARG_ names collide",
			files: map[string]string{"x.yaml": `name: x
description: d
run: ok.sh
parameters:
  file-name: {type: string}
  file_name: {type: string}
`},
			want: []string{"x.yaml:6: parameters 'file-name' and 'file_name' would both be passed as ARG_FILE_NAME; rename one"},
		},
		{
			name:  "parameters not a mapping",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nparameters: [a, b]\n"},
			want:  []string{"x.yaml:4: parameters: want a mapping of parameter names to {type: ..., description: ...}, got a list"},
		},
		{
			name:  "schema and parameters",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nparameters: {}\nschema: {type: object}\n"},
			want:  []string{"x.yaml:5: give either 'parameters:' or 'schema:', not both"},
		},
		{
			name:  "schema not an object type",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nschema:\n  type: array\n"},
			want:  []string{"x.yaml:5: schema: the top level must have 'type: object' (tool arguments are a JSON object)"},
		},
		{
			name:  "schema not a mapping",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nschema: \"{}\"\n"},
			want:  []string{`x.yaml:4: schema: want a JSON Schema object, got "{}"`},
		},
		{
			name:  "schema invalid",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nschema:\n  type: object\n  properties:\n    n: {type: integer, minimum: low}\n"},
			want:  []string{"x.yaml:5: schema: not a valid JSON Schema: /properties/n/minimum: got string, want number"},
		},
		{
			name:  "schema not in strict form",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\nstrict: true\nschema:\n  type: object\n  properties:\n    n: {type: integer}\n  additionalProperties: false\n"},
			want:  []string{`x.yaml:6: schema: strict: true needs the schema in strict form: /required must list "n" (make it nullable to keep it optional)`},
		},
		{
			name:  "invalid YAML",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nparameters:\n  a: {type: string\nrun: ok.sh\n"},
			want:  []string{"x.yaml:4: invalid YAML: did not find expected ',' or '}'"},
		},
		{
			name:  "tab indentation",
			files: map[string]string{"x.yaml": "name: x\n\tdescription: d\n"},
			want:  []string{"x.yaml:2: invalid YAML: a tab in the indentation: YAML indents with spaces only"},
		},
		{
			name:  "empty file",
			files: map[string]string{"x.yaml": "# nothing yet\n"},
			want:  []string{"x.yaml: no tool defined: the file is empty"},
		},
		{
			name:  "two documents",
			files: map[string]string{"x.yaml": "name: x\ndescription: d\nrun: ok.sh\n---\nname: y\n"},
			want:  []string{"x.yaml:4: more than one YAML document; put several tools in one file as a list under 'tools:'"},
		},
		{
			name:  "top-level list",
			files: map[string]string{"x.yaml": "- name: x\n"},
			want:  []string{"x.yaml:1: a tool file holds a mapping (name:, description:, ...) or a 'tools:' list, got a list"},
		},
		{
			name:  "tools not a list",
			files: map[string]string{"x.yaml": "tools: {name: x}\n"},
			want:  []string{"x.yaml:1: 'tools:' must be a list of tools, got a mapping"},
		},
		{
			name:  "tools empty",
			files: map[string]string{"x.yaml": "tools: []\n"},
			want:  []string{"x.yaml:1: 'tools:' is an empty list"},
		},
		{
			name:  "tools and a tool",
			files: map[string]string{"x.yaml": "name: x\ntools: []\n"},
			want:  []string{"x.yaml:1: a file holds either one tool or a 'tools:' list, not both; move the other keys into a list item"},
		},
		{
			name:  "list item not a mapping",
			files: map[string]string{"x.yaml": "tools:\n  - just a string\n"},
			want:  []string{`x.yaml:2: a tool is a mapping of keys (name:, description:, ...), got "just a string"`},
		},
		{
			name:  "aliases",
			files: map[string]string{"x.yaml": "tools:\n  - &t\n    name: x\n    description: d\n    run: ok.sh\n  - *t\n"},
			want:  []string{"x.yaml:6: YAML aliases (*t) are not supported in tool definitions; write the value out"},
		},
		{
			name: "every problem of every file, in order",
			files: map[string]string{
				"b.yml":  "name: b\ndescription: d\nrun: ok.sh\ntimeout: soon\n",
				"a.yaml": "name: a\nrun: ok.sh\nmax_output: -1\n",
			},
			want: []string{
				"a.yaml:1: missing 'description': say what the tool does and when the model should use it",
				`a.yaml:3: max_output: "-1" is not a size; write a number of bytes with an optional unit: 512, 16KiB, 1MB`,
				`b.yml:4: timeout: "soon" is not a duration; write it like 10s, 2m or 1m30s`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"ok.sh": okScript}
			for k, v := range tt.files {
				files[k] = v
			}
			writeFiles(t, dir, files)
			if _, ok := tt.files["plain.txt"]; ok {
				os.Chmod(filepath.Join(dir, "plain.txt"), 0o644)
			}
			r, err := Load([]string{dir}, Options{Getenv: testEnv(nil)})
			if r != nil {
				t.Errorf("Load returned a registry along with errors")
			}
			got := loadErrors(t, err, dir)
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n got  %q\n want %q", got, tt.want)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Errorf("error is not a *LoadError: %T", err)
			}
		})
	}
}

// A syntax error is reported at the line to fix, whichever line yaml.v3's
// own message names (given in each comment).
func TestSyntaxErrorLines(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		// yaml.v3: 3, where the flow mapping starts counted from 0.
		{"flow mapping left open", "name: x\ndescription: d\nparameters:\n  a: {type: string\nrun: ok.sh\n",
			"4: invalid YAML: did not find expected ',' or '}'"},
		// yaml.v3: 5.
		{"flow list left open", "name: x\ndescription: d\nrun: ok.sh\nstrict: true\nparameters: {}\nenv: [x, y\n",
			"6: invalid YAML: did not find expected ',' or ']'"},
		// yaml.v3: 3, the item's line counted from 0.
		{"list item in a mapping", "name: x\ndescription: d\nrun: ok.sh\n- item\n",
			"4: invalid YAML: did not find expected key"},
		// yaml.v3: 1, where the list's first item starts counted from 0.
		{"key misindented in a tools list", "tools:\n  - name: x\n    description: d\n    run: ok.sh\n    env: [A]\n   confirm: true\n",
			"6: invalid YAML: did not find expected '-' indicator"},
		// yaml.v3: 1, as above.
		{"key misindented after 200 tools", "tools:\n" + strings.Repeat("  - name: x\n    description: d\n    run: ok.sh\n", 200) + "   confirm: true\n",
			"602: invalid YAML: did not find expected '-' indicator"},
		// yaml.v3: 3, where the parameter's mapping starts counted from 0.
		{"key misindented in a parameter", "name: x\ndescription: d\nparameters:\n  a:\n     type: string\n    description: s\nrun: ok.sh\n",
			"6: invalid YAML: did not find expected key"},
		// yaml.v3: 2, the value before the tab.
		{"tab after a value", "name: x\ndescription: d\n\trun: ok.sh\n",
			"3: invalid YAML: a tab in the indentation: YAML indents with spaces only"},
		// yaml.v3: 2, where the block scalar starts.
		{"tab in a block scalar", "name: x\ndescription: |\n  one\n\ttwo\nrun: ok.sh\n",
			"4: invalid YAML: a tab in the indentation: YAML indents with spaces only"},
		// yaml.v3: 2, the end of the file.
		{"quote left open on line 1", "name: 'x\n",
			"1: invalid YAML: found unexpected end of stream"},
		// yaml.v3: 3, right already.
		{"quote left open", "name: x\ndescription: d\nrun: \"ok.sh\n",
			"3: invalid YAML: found unexpected end of stream"},
		// yaml.v3: no line.
		{"colon in a value on line 1", "name: x: y\ndescription: d\nrun: ok.sh\n",
			"1: invalid YAML: mapping values are not allowed in this context"},
		// yaml.v3: 2.
		{"undefined tag handle", "name: x\ndescription: d\nrun: !e!sh ok.sh\n",
			"3: invalid YAML: found undefined tag handle"},
		// yaml.v3: 1.
		{"directive twice", "%YAML 1.1\n%YAML 1.1\n---\nname: x\n",
			"2: invalid YAML: found duplicate %YAML directive"},
		// yaml.v3: no line.
		{"unknown anchor", "name: x\ndescription: d\nrun: *script\n",
			"3: invalid YAML: unknown anchor 'script' referenced"},
		// yaml.v3: 4, where the second document's flow mapping starts
		// counted from 0.
		{"in a second document", "name: x\n---\nname: y\ndescription: d\nrun: {a\n",
			"5: invalid YAML: did not find expected ',' or '}'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"x.yaml": tt.yaml, "ok.sh": okScript})
			_, err := Load([]string{filepath.Join(dir, "x.yaml")}, Options{Getenv: testEnv(nil)})
			got := loadErrors(t, err, dir)
			if want := []string{"x.yaml:" + tt.want}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestLoadMissingPath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "tools.d")
	_, err := Load([]string{missing}, Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want one satisfying errors.Is(err, fs.ErrNotExist)", err)
	}
	if want := missing + ": no such file or folder"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

func TestLoadOversizedFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"big.yaml": "# " + strings.Repeat("x", maxFileSize)})
	got := loadErrors(t, func() error { _, err := Load([]string{dir}, Options{}); return err }(), dir)
	want := []string{"big.yaml: file is 1048578 bytes; a tool definition is at most 1048576"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.sh":        okScript,
		"b.yaml":       "name: beta\ndescription: Second.\nrun: ok.sh\ntimeout: 1m30s\nmax_output: 1MB\nenv: [GITHUB_TOKEN, HOME]\nconfirm: true\n",
		"a.yml":        "tools:\n  - name: alpha\n    description: |\n      First line.\n      More detail.\n    command: [echo, hi]\n  - name: gamma\n    description: Third.\n    run: ./ok.sh\n    strict: true\n",
		"notes.txt":    "name: ignored\n",
		".hidden.yaml": "name: hidden\n",
		"sub/c.yaml":   "name: sub\n",
	})
	writeFiles(t, other, map[string]string{"ok.sh": okScript, "one.yaml": "name: delta\ndescription: Fourth.\nrun: ok.sh\n"})

	// The same folder twice, as "dir" and "dir/", is read once.
	r, err := Load([]string{dir, dir + "/", filepath.Join(other, "one.yaml")}, Options{Getenv: testEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Names(), []string{"alpha", "beta", "delta", "gamma"}; !slices.Equal(got, want) {
		t.Fatalf("names = %q, want %q", got, want)
	}
	alpha, _ := r.Lookup("alpha")
	if alpha.Description != "First line.\nMore detail." || alpha.Line != 2 || alpha.File != filepath.Join(dir, "a.yml") {
		t.Errorf("alpha = %+v", alpha)
	}
	if !slices.Equal(alpha.Command, []string{"echo", "hi"}) || alpha.Run != "" {
		t.Errorf("alpha command = %q run = %q", alpha.Command, alpha.Run)
	}
	if alpha.Timeout != DefaultTimeout || alpha.MaxOutput != DefaultMaxOutput {
		t.Errorf("alpha defaults: timeout %v max_output %d", alpha.Timeout, alpha.MaxOutput)
	}
	beta, _ := r.Lookup("beta")
	if beta.Timeout != 90*time.Second || beta.MaxOutput != 1_000_000 || !beta.Confirm || !slices.Equal(beta.Env, []string{"GITHUB_TOKEN", "HOME"}) {
		t.Errorf("beta = %+v", beta)
	}
	if beta.Run != filepath.Join(dir, "ok.sh") || !filepath.IsAbs(beta.Run) {
		t.Errorf("beta run = %q", beta.Run)
	}
	gamma, _ := r.Lookup("gamma")
	if !gamma.Strict || gamma.Line != 7 {
		t.Errorf("gamma = %+v", gamma)
	}

	// What callers get are copies.
	defs := r.Definitions()
	defs[0].Command[0] = "rm"
	defs[0].Name = "changed"
	if d, _ := r.Lookup("alpha"); d.Command[0] != "echo" {
		t.Errorf("a Definition returned by Definitions changed the registry")
	}
	if !r.Has("alpha") || r.Has("changed") || r.Has("hidden") || r.Has("sub") || r.Has("ignored") {
		t.Errorf("Has: wrong set of tools %q", r.Names())
	}
}

func TestSubsetWithout(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.sh":  okScript,
		"t.yaml": "tools:\n  - {name: calc, description: d, run: ok.sh}\n  - {name: now, description: d, run: ok.sh}\n  - {name: read_file, description: d, run: ok.sh}\n",
	})
	r, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Subset([]string{"now", "calc"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Names(); !slices.Equal(got, []string{"calc", "now"}) {
		t.Errorf("Subset names = %q", got)
	}
	_, err = r.Subset([]string{"calc", "red_file"})
	if want := `unknown tool "red_file" (did you mean "read_file"?) (available: calc, now, read_file)`; err == nil || err.Error() != want {
		t.Errorf("Subset error = %v, want %q", err, want)
	}
	if got := r.Without("now", "nope").Names(); !slices.Equal(got, []string{"calc", "read_file"}) {
		t.Errorf("Without names = %q", got)
	}
	if r.Len() != 3 {
		t.Errorf("the original registry changed: %q", r.Names())
	}
}

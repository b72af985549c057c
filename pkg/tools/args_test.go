package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/wire"
)

// echoScript prints its stdin, then its ARG_* and AGENTLOOP_* variables.
const echoScript = `#!/bin/sh
cat
env | grep -E '^(ARG|AGENTLOOP)_' | sort
`

const calcYAML = `name: calc
description: d
parameters:
  expression: {type: string}
  precision: {type: integer, required: false, default: 6}
  mode: {type: string, enum: [deg, rad], required: false}
  verbose: {type: boolean, required: false}
  scale: {type: number, required: false}
  vars: {type: array, items: {type: number}, required: false}
  opts:
    type: object
    required: false
    properties:
      round: {type: boolean}
run: tool.sh
`

func TestBadArguments(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"not JSON", `{"expression": `, "arguments are not valid JSON: unexpected EOF"},
		{"trailing garbage", `{"expression":"1"} x`, "arguments are not valid JSON: invalid character after top-level value"},
		{"array", `[1,2]`, "arguments must be a JSON object, got an array"},
		{"string", `"1+1"`, "arguments must be a JSON object, got a string"},
		{"null", `null`, "arguments must be a JSON object, got null"},
		{"missing required", `{}`, "invalid arguments for calc: /expression: missing required property"},
		{"wrong type", `{"expression": 5}`, "invalid arguments for calc: /expression: got number, want string"},
		{"not an integer", `{"expression":"1","precision":2.5}`, "invalid arguments for calc: /precision: got number, want integer"},
		{"outside the enum", `{"expression":"1","mode":"grad"}`, `invalid arguments for calc: /mode: "grad" is not one of "deg", "rad"`},
		{"unknown field", `{"expression":"1","expresion":"2"}`, "invalid arguments for calc: /expresion: unknown property (accepted: expression, mode, opts, precision, scale, vars, verbose)"},
		{"null for optional, not strict", `{"expression":"1","mode":null}`, "invalid arguments for calc: /mode: got null, want string"},
		{"array item", `{"expression":"1","vars":[1,"x"]}`, "invalid arguments for calc: /vars/1: got string, want number"},
		{"nested missing", `{"expression":"1","opts":{}}`, "invalid arguments for calc: /opts/round: missing required property"},
		{"nested unknown", `{"expression":"1","opts":{"round":true,"x":1}}`, "invalid arguments for calc: /opts/x: unknown property (accepted: round)"},
		{"several problems", `{"expression":1,"mode":"x"}`, `invalid arguments for calc: /expression: got number, want string; /mode: "x" is not one of "deg", "rad"`},
		{"NUL in a string", `{"expression":"1\u0000"}`, "invalid arguments for calc: /expression: contains a NUL character, which cannot be passed to a program"},
	}
	r := loadOne(t, calcYAML, echoScript, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Call(context.Background(), "calc", "c1", []byte(tt.args))
			if !res.IsError || res.Kind != wire.KindBadArguments || res.Content != tt.want || res.ExitCode != -1 {
				t.Errorf("Call = %+v\nwant content %q", res, tt.want)
			}
			if err := r.CheckArgs("calc", []byte(tt.args)); err == nil || err.Error() != tt.want {
				t.Errorf("CheckArgs = %v, want %q", err, tt.want)
			}
		})
	}
}

// Arguments that do not match the schema never reach the script.
func TestBadArgumentsNeverRun(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	r := loadOne(t, "name: get_weather\ndescription: d\nparameters:\n  city: {type: string}\nrun: tool.sh\n",
		"#!/bin/sh\ntouch '"+marker+"'\necho \"$ARG_CITY\"\n", Options{})
	res := r.Call(context.Background(), "get_weather", "c1", []byte(`{"city": 5}`))
	if res.Kind != wire.KindBadArguments || res.Content != "invalid arguments for get_weather: /city: got number, want string" {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the script ran for invalid arguments")
	}
	// The same script does run for valid ones: the marker test is sound.
	if res := mustCall(t, r, "get_weather", `{"city":"Paris"}`); res.Content != "Paris\n" {
		t.Fatalf("content = %q", res.Content)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the script did not run for valid arguments")
	}
}

func TestArgumentsReachTheTool(t *testing.T) {
	r := loadOne(t, calcYAML, echoScript, Options{})
	res := mustCall(t, r, "calc", `{"expression":"2 * $(rm -rf /) ; 'x'","verbose":true,"scale":1.50,"vars":[1,2],"opts":{"round":false}}`)
	want := `{"expression":"2 * $(rm -rf /) ; 'x'","opts":{"round":false},"precision":6,"scale":1.50,"vars":[1,2],"verbose":true}
AGENTLOOP_CALL_ID=call_1
AGENTLOOP_TOOL=calc
ARG_EXPRESSION=2 * $(rm -rf /) ; 'x'
ARG_PRECISION=6
ARG_SCALE=1.50
ARG_VERBOSE=true
`
	if res.Content != want {
		t.Errorf("content:\n%s\nwant:\n%s", res.Content, want)
	}
}

func TestEmptyArgumentsMeanNone(t *testing.T) {
	r := loadOne(t, "name: now\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\ncat\n", Options{})
	for _, args := range []string{"", "  ", "{}"} {
		if res := mustCall(t, r, "now", args); res.Content != "{}\n" {
			t.Errorf("args %q: content = %q", args, res.Content)
		}
	}
}

func TestArgEnvNames(t *testing.T) {
	for in, want := range map[string]string{
		"city": "ARG_CITY", "fileName": "ARG_FILENAME", "max-depth": "ARG_MAX_DEPTH", "a_1": "ARG_A_1",
	} {
		if got := argEnvName(in); got != want {
			t.Errorf("argEnvName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A strict tool's model sends null for what it leaves out; the tool sees
// the default, or nothing, just as for a call that omits it.
func TestStrictNulls(t *testing.T) {
	y := strings.Replace(calcYAML, "run: tool.sh", "run: tool.sh\nstrict: true", 1)
	r := loadOne(t, y, echoScript, Options{})
	for _, args := range []string{
		`{"expression":"1","precision":null,"mode":null,"verbose":null,"scale":null,"vars":null,"opts":null}`,
		`{"expression":"1"}`,
	} {
		res := mustCall(t, r, "calc", args)
		first, _, _ := strings.Cut(res.Content, "\n")
		if first != `{"expression":"1","precision":6}` {
			t.Errorf("args %s: stdin = %s", args, first)
		}
	}
	// Null for a required parameter is still wrong.
	if err := r.CheckArgs("calc", []byte(`{"expression":null}`)); err == nil || err.Error() != "invalid arguments for calc: /expression: got null, want string" {
		t.Errorf("CheckArgs = %v", err)
	}
}

func TestDefaultsAreNotShared(t *testing.T) {
	y := `name: t
description: d
parameters:
  o:
    type: object
    required: false
    default: {a: 1}
    properties:
      a: {type: integer}
      b: {type: integer, required: false, default: 2}
run: tool.sh
`
	r := loadOne(t, y, "#!/bin/sh\ncat\n", Options{})
	for range 2 {
		if res := mustCall(t, r, "t", `{}`); res.Content != `{"o":{"a":1,"b":2}}`+"\n" {
			t.Errorf("content = %q", res.Content)
		}
	}
	if res := mustCall(t, r, "t", `{"o":{"a":5}}`); res.Content != `{"o":{"a":5,"b":2}}`+"\n" {
		t.Errorf("content = %q", res.Content)
	}
}

package cmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/transcript/recordschema"
)

var update = flag.Bool("update", false, "rewrite the generated files")

// The schema in docs/transcript.md is the one the code generates.
func TestTranscriptDocSchema(t *testing.T) {
	path := filepath.Join("..", "docs", "transcript.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := recordschema.JSON()
	if err != nil {
		t.Fatal(err)
	}
	block := "<!-- schema:begin -->\n```json\n" + string(schema) + "\n```\n<!-- schema:end -->"
	re := regexp.MustCompile("(?s)<!-- schema:begin -->.*<!-- schema:end -->")
	if !re.Match(doc) {
		t.Fatal("docs/transcript.md has no schema markers")
	}
	if *update {
		if err := os.WriteFile(path, re.ReplaceAllLiteral(doc, []byte(block)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !strings.Contains(string(doc), block) {
		t.Error("the schema in docs/transcript.md is out of date (go test ./cmd -update rewrites it)")
	}
}

// docs/exit-codes.md lists every exit code the program uses.
func TestExitCodesDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "exit-codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []int{ExitOK, ExitFailure, ExitUsage, ExitBudget, ExitProvider, ExitSchema, ExitInterrupted} {
		row := regexp.MustCompile(`(?m)^\| ` + strconv.Itoa(code) + ` \|`)
		if !row.Match(doc) {
			t.Errorf("exit code %d is not in docs/exit-codes.md", code)
		}
	}
}

// Every record agentloop writes is valid against the schema it publishes.
func TestTranscriptSchemaAcceptsRecords(t *testing.T) {
	schema, err := recordschema.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc jsonschema.Schema
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	sch, err := doc.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "demo", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
	}
	var rec bytes.Buffer
	w := transcript.NewWriter(&rec, nil)
	if err := w.WriteResult(transcript.CallResult{Step: 1, Result: transcript.Result{CallID: "call_1", Name: "mark"}, Content: "ok"}); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(rec.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("result record: %v", err)
	}
	var bad any
	_ = json.Unmarshal([]byte(`{"type":"end","reason":"finished"}`), &bad)
	if sch.Validate(bad) == nil {
		t.Error("an end record with an unknown reason passed")
	}
}

package main

import (
	"flag"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentloop/agentloop/internal/scripttest"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite testdata/script files with actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, scripttest.Commands())
}

// TestScript runs the end-to-end CLI scenarios in testdata/script.
func TestScript(t *testing.T) {
	testscript.Run(t, scripttest.Params("testdata/script", nil, *updateScripts))
}

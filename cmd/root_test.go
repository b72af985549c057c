package cmd

import (
	"context"
	"testing"

	"github.com/agentloop/agentloop/pkg/iostreams"
)

// The command lines answered before the whole tree is built print what
// cobra prints from the whole tree, byte for byte, on the same streams.
func TestShortcutsPrintWhatTheTreePrints(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"--help"}, {"-h"}} {
		t.Run(args[0], func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			if code := Execute(context.Background(), ios, args); code != ExitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			wantIOS, _, want, wantErr := iostreams.Test()
			root := NewRootCmd(wantIOS)
			root.SetArgs(args)
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			if out.String() != want.String() || errOut.String() != wantErr.String() {
				t.Errorf("stdout %q, stderr %q; the whole tree prints %q, %q", out, errOut, want, wantErr)
			}
			if out.Len() == 0 {
				t.Error("nothing printed")
			}
		})
	}
}

// The full tree is still built for what the shortcuts do not cover: a
// version asked for with other flags, the help of a subcommand.
func TestShortcutsCoverOnlyTheirLines(t *testing.T) {
	for _, args := range [][]string{{"--version", "--help"}, {"--help", "run"}, {"--version", "-v"}} {
		if helpOnly(args) {
			t.Errorf("%q taken for the root's help alone", args)
		}
	}
}

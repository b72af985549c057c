package engine

import (
	"slices"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// A run gone on with keeps the clearing policy it recorded, but for what a
// flag or a variable gives.
func TestUseRecorded(t *testing.T) {
	p := &transcript.ContextPolicy{Limit: 9000, Keep: 2, KeepTools: []string{"read"}, ClearAtLeast: 500, Editing: "server"}
	l := Limits{ContextLimit: 100, ContextKeep: 5}
	if !l.UseRecorded(p, func(string) bool { return false }) {
		t.Error("the recorded limit is not said to be used")
	}
	if l.ContextLimit != 9000 || l.ContextKeep != 2 || !slices.Equal(l.ContextKeepTools, []string{"read"}) || l.ContextClearAtLeast != 500 || l.ContextEditing != "server" {
		t.Errorf("recorded policy not taken: %+v", l)
	}
	l = Limits{ContextLimit: 100, ContextKeep: 5}
	if l.UseRecorded(p, func(k string) bool { return k == "context_limit" }) || l.ContextLimit != 100 || l.ContextKeep != 2 {
		t.Errorf("a given limit overridden: %+v", l)
	}
	if l.UseRecorded(nil, func(string) bool { return false }) || l.ContextLimit != 100 {
		t.Errorf("no recorded policy changed the limits: %+v", l)
	}
}

package tools

import (
	"context"
	"strings"
	"testing"
)

// A call's process gets the variables of its context's WithCallEnv, last,
// so that they win over agentloop's own of the same name passed through.
func TestCallEnv(t *testing.T) {
	getenv := testEnv(map[string]string{"PATH": "/usr/bin:/bin", "TRACEPARENT": "00-agentloop-own"})
	r := loadOne(t, "name: e\ndescription: d\nrun: tool.sh\nenv: [TRACEPARENT]\n", "#!/bin/sh\necho \"$TRACEPARENT\"\n", Options{Getenv: getenv})
	ctx := WithCallEnv(context.Background(), func(callID string) []string {
		return []string{"TRACEPARENT=span-of-" + callID}
	})
	res := r.Call(ctx, "e", "call_7", []byte(`{}`))
	if got := strings.TrimSpace(res.Content); got != "span-of-call_7" {
		t.Errorf("TRACEPARENT = %q, want span-of-call_7", got)
	}
	res = r.Call(context.Background(), "e", "call_8", []byte(`{}`))
	if got := strings.TrimSpace(res.Content); got != "00-agentloop-own" {
		t.Errorf("without WithCallEnv: TRACEPARENT = %q, want the one passed through", got)
	}
}

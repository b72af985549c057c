package cmd

import (
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
)

// TestApproverOrderPerRun: runs that share an approver (the items of a
// batch) each ask about their turn's calls in the order the model made
// them, whatever turns the other runs start meanwhile.
func TestApproverOrderPerRun(t *testing.T) {
	reg, _ := approvalTools(t)
	ios, in, _, errOut := Test()
	in.WriteString("y\ny\ny\n")
	ios.SetTTY(true, false, false)
	a := newApprover(ios, reg, approvalOptions{}, false, nil)
	defer a.Close()
	orderA, orderB := newCallOrder(), newCallOrder()
	ctxA, ctxB := withCallOrder(context.Background(), orderA), withCallOrder(context.Background(), orderB)
	observeA, observeB := observeOrder(orderA, nil), observeOrder(orderB, nil)

	a1, a2, b1 := agent.Call{ID: "a1", Name: "delete"}, agent.Call{ID: "a2", Name: "delete"}, agent.Call{ID: "b1", Name: "delete"}
	observeA(agent.Event{Kind: agent.EventCallStart, Step: 1, Call: &a1, Index: 0})
	observeA(agent.Event{Kind: agent.EventCallStart, Step: 1, Call: &a2, Index: 1})
	// Another item's turn starts: it must not make A forget its order.
	observeB(agent.Event{Kind: agent.EventCallStart, Step: 3, Call: &b1, Index: 0})

	var wg sync.WaitGroup
	wg.Go(func() { a.Call(ctxA, "delete", "a2", []byte(`{"path":"x"}`)) })
	time.Sleep(30 * time.Millisecond)
	wg.Go(func() { a.Call(ctxA, "delete", "a1", []byte(`{"path":"x"}`)) })
	wg.Go(func() { a.Call(ctxB, "delete", "b1", []byte(`{"path":"x"}`)) })
	wg.Wait()
	out := errOut.String()
	if !regexp.MustCompile(`(?s)\(call a1\).*\(call a2\)`).MatchString(out) || !regexp.MustCompile(`\(call b1\)`).MatchString(out) {
		t.Errorf("questions out of each run's call order:\n%s", out)
	}
}

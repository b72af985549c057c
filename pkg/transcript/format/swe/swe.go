// Package swe reads SWE-agent trajectories (trajectories/<user>/<run>/
// <instance>.traj): a JSON document whose "history" is the conversation
// SWE-agent sent, in the Chat Completions shape, a tool message naming its
// call in a list ("tool_call_ids") as SWE-agent keeps it.
package swe

import "github.com/agentloop/agentloop/pkg/transcript/internal/check"

// Name is the format's name.
const Name = "swe-agent"

// Format is the format of SWE-agent trajectories.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "SWE-agent trajectory", Writer: "SWE-agent (sweagent run)",
		Example: "trajectories/<user>/<run>/<instance>.traj"}
}

// Sniff knows a trajectory by its "trajectory" array, or by a "history"
// array of Chat Completions messages; a history of Gemini's contents
// ("parts") is not one.
func (format) Sniff(h *check.Head) check.Confidence {
	keys, ok := h.Object()
	if !ok {
		return check.No
	}
	if keys.Has("trajectory", check.KindArray) {
		return check.Certain
	}
	hist, ok := keys.Get("history")
	if !ok || hist.Kind != check.KindArray {
		return check.No
	}
	first, ok := hist.Elem()
	switch {
	case !ok:
		return check.Possible
	case first.Has("parts", check.KindAbsent):
		return check.No
	case first.Has("role", check.KindString):
		return check.Likely
	}
	return check.No
}

// Open reads the trajectory's history: a finished run's, which may end at
// a limit with calls unanswered.
func (format) Open(f *check.File) error {
	return f.ReadDocument(&check.DocReader{Name: Name, Arrays: []string{"history"}, Log: true})
}

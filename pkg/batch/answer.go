package batch

import (
	"encoding/json"

	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// recordedAnswerJSON is a finished item's answer checked against the
// schema its transcript's header records: the value when it matches, and
// whether it does; nothing for an item without a schema, or one that
// ended without an answer to check.
func recordedAnswerJSON(h *transcript.Header, r Result) (json.RawMessage, *bool) {
	if h == nil || h.AnswerSchema == nil {
		return nil, nil
	}
	ok := false
	switch r.Reason {
	case wire.ReasonMaxTokens, wire.ReasonRefusal:
		return nil, &ok
	}
	if r.Answer == "" {
		return nil, &ok
	}
	s, err := answerschema.FromJSON(h.AnswerSchema.Schema, "")
	if err != nil {
		return nil, &ok
	}
	a := s.Check(r.Answer, h.AnswerSchema.Strict)
	if !a.OK() {
		return nil, &ok
	}
	ok = true
	return a.JSON, &ok
}

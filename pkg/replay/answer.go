package replay

import (
	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Conformance is the replayed final answer checked against the schema the
// recording's header records (run --schema).
type Conformance struct {
	// OK says that the answer matches.
	OK bool
	// Problems are what does not match, each at its JSON pointer; the
	// recorded schema's own problem when it cannot be read.
	Problems []string
}

// conformance checks answer against the recording's schema; nil when it
// records none, or the recording did not end with an answer.
func conformance(conv *transcript.Conversation, answer string) *Conformance {
	if conv.Header == nil || conv.Header.AnswerSchema == nil || answer == "" {
		return nil
	}
	as := conv.Header.AnswerSchema
	s, err := answerschema.FromJSON(as.Schema, "")
	if err != nil {
		return &Conformance{Problems: []string{"the recorded schema cannot be read: " + err.Error()}}
	}
	a := s.Check(answer, as.Strict)
	c := &Conformance{OK: a.OK()}
	for _, p := range a.Problems {
		c.Problems = append(c.Problems, p.String())
	}
	return c
}

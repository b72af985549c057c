// Package batchapi runs the tool-calling loops of many items over a
// provider's Batch API (OpenAI's Files and Batches, Anthropic's Message
// Batches): each item's loop is given a Provider whose Complete does not
// call the model but hands its request to the Engine, which gathers the
// requests of every item into one batch a round, submits it, polls it,
// and hands each item its answer. The loop itself is the live one: tools,
// approval, budgets and transcripts are as in a live run.
//
// What each round is, and the batch it went out as, is written to
// OUTDIR/rounds.jsonl, synced, before the call that would cost money if it
// were made twice: a run killed at any moment and run again polls the
// batches it left in flight, reads those that ended, and submits only what
// no batch holds.
//
// The package imports no SDK: a provider package gives it a Service (the
// batch endpoints) and a Codec (the request body a live call would send,
// and the turn of an answer), both defined here.
package batchapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
)

// Line is one request of a batch: the body a live call would send.
type Line struct {
	CustomID string
	Body     []byte
}

// Status is a batch as the provider last described it.
type Status struct {
	ID string
	// State is the provider's own word: validating, in_progress,
	// finalizing, completed, failed, expired, cancelling, cancelled
	// (OpenAI); in_progress, canceling, ended (Anthropic).
	State string
	// Ended is set once the batch's results can be read.
	Ended bool
	// Cancelled is set when the batch was cancelled (its requests not run
	// are cancelled, not expired).
	Cancelled bool
	// Counts are the provider's request counts, by its names.
	Counts    map[string]int64
	CreatedAt time.Time
	ExpiresAt time.Time
	// InputFileID, OutputFileID and ErrorFileID are OpenAI's files.
	InputFileID, OutputFileID, ErrorFileID string
	// Failed are the problems that failed a batch at validation, each of
	// a line (1-based, of the requests in order; 0 for the whole file).
	Failed []LineError
}

// LineError is a problem validation found with one line of a batch.
type LineError struct {
	Line    int    `json:"line"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// Why a request of a batch was not run.
const (
	NotRunExpired   = "expired"
	NotRunCancelled = "cancelled"
	NotRunTimeout   = "request_timeout"
)

// Result is what became of one request of a batch.
type Result struct {
	CustomID string `json:"custom_id"`
	// Status is the HTTP status of its answer (200, or the API's error);
	// 0 when it was not run.
	Status int `json:"status,omitempty"`
	// Body is the answer, or the API's error body.
	Body json.RawMessage `json:"body,omitempty"`
	// NotRun says why a request was not run (NotRun*); Message is the
	// provider's account.
	NotRun  string `json:"not_run,omitempty"`
	Message string `json:"message,omitempty"`
}

// Submission is a batch to create: its requests, and what names it to a
// later run that looks for it (OpenAI's metadata; the file's name).
type Submission struct {
	Name     string
	Metadata map[string]string
	Lines    []Line
}

// Service is a provider's batch endpoints.
type Service interface {
	// Create submits a batch. An API with an input file (OpenAI) uploads
	// it first and calls noteFile with its id before the batch is
	// created, so that a run killed in between finds the batch by it.
	Create(ctx context.Context, s Submission, noteFile func(fileID string) error) (*Status, error)
	Get(ctx context.Context, id string) (*Status, error)
	// Results reads what each request of an ended batch became.
	Results(ctx context.Context, st *Status) ([]Result, error)
	Cancel(ctx context.Context, id string) (*Status, error)
	// Find looks for a batch a run created but did not live to record:
	// created at since or later, from the input file fileID (OpenAI) or
	// holding n requests (Anthropic). Nil when there is none.
	Find(ctx context.Context, since time.Time, fileID string, n int) (*Status, error)
}

// Codec is what a round needs of a provider besides its endpoints: the
// body a live call would send for a request (without streaming), and the
// turn or the error an answer of a batch is.
type Codec interface {
	agent.Provider
	// BatchBody is the request body of req, byte for byte what Complete
	// would send without OnText.
	BatchBody(req *agent.Request) ([]byte, error)
	// BatchTurn reads an answer (status 200) as Complete would.
	BatchTurn(body []byte) (*agent.Turn, error)
	// BatchError is the error a live call would return for an error
	// status and body.
	BatchError(status int, body []byte) *agent.ProviderError
}

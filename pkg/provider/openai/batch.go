package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentloop/agentloop/internal/jsonesc"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batchapi"
)

// The Batch API of both OpenAI providers: the request body a live call
// sends, put in a JSONL file uploaded with purpose batch; the batch made
// of it; its output and error files read back. See internal/fakeapi's
// BATCH.md for the rules the calls follow.

var (
	_ batchapi.Codec   = (*Chat)(nil)
	_ batchapi.Codec   = (*Responses)(nil)
	_ batchapi.Service = (*Batches)(nil)
)

// BatchBody is the body Complete sends for req without streaming.
func (o *Chat) BatchBody(req *agent.Request) ([]byte, error) {
	r := *req
	r.OnText = nil
	return io.ReadAll(o.body(&r).Reader())
}

// BatchTurn reads a Chat Completions answer of a batch as Complete reads
// one of the API.
func (o *Chat) BatchTurn(body []byte) (*agent.Turn, error) {
	var comp openai.ChatCompletion
	if err := comp.UnmarshalJSON(body); err != nil {
		return nil, &agent.ProviderError{Provider: o.Name(), Message: "the batch's answer is not a chat completion: " + err.Error(), Err: err}
	}
	if len(comp.Choices) == 0 {
		return nil, &agent.ProviderError{Provider: o.Name(), Message: "the response has no choices"}
	}
	m := comp.Choices[0].Message
	extras := make([]map[string]any, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		extras[i] = extraFields(tc.AsFunction().JSON.ExtraFields)
	}
	return o.turn(&comp, extraFields(m.JSON.ExtraFields), extras)
}

// BatchError is the error Complete returns for an error answer.
func (o *Chat) BatchError(status int, body []byte) *agent.ProviderError {
	return endpointOf(o.Name(), &o.cfg).BodyError(status, body)
}

// Batches are the Batch API's endpoints at the provider's address, for its
// Chat Completions requests.
func (o *Chat) Batches() (*Batches, error) {
	return newBatches(o.Name(), o.cfg, "/v1/chat/completions")
}

// BatchBody is the body Complete sends for req without streaming; a batch
// keeps no response on the server (store false), so no request goes on
// from one it holds.
func (r *Responses) BatchBody(req *agent.Request) ([]byte, error) {
	if r.cfg.Store {
		return nil, errors.New("responses: a batch request cannot go on from a response the server holds: run without --store")
	}
	q := *req
	q.OnText = nil
	b, _ := r.body(&q)
	return io.ReadAll(b.Reader())
}

// BatchTurn reads a Responses answer of a batch as Complete reads one of
// the API.
func (r *Responses) BatchTurn(body []byte) (*agent.Turn, error) {
	var resp responses.Response
	if err := resp.UnmarshalJSON(body); err != nil {
		return nil, &agent.ProviderError{Provider: r.Name(), Message: "the batch's answer is not a response: " + err.Error(), Err: err}
	}
	return r.turn(&resp, resp.Output)
}

// BatchError is the error Complete returns for an error answer.
func (r *Responses) BatchError(status int, body []byte) *agent.ProviderError {
	return endpointOf(r.Name(), &r.cfg.Config).BodyError(status, body)
}

// Batches are the Batch API's endpoints at the provider's address, for its
// Responses requests.
func (r *Responses) Batches() (*Batches, error) {
	return newBatches(r.Name(), r.cfg.Config, "/v1/responses")
}

// Batches talks to OpenAI's Files and Batches endpoints.
type Batches struct {
	name     string
	endpoint string
	files    openai.FileService
	batches  openai.BatchService
	cfg      Config
}

func newBatches(name string, cfg Config, endpoint string) (*Batches, error) {
	opts, err := openAIOptions(name, &cfg)
	if err != nil {
		return nil, err
	}
	return &Batches{name: name, endpoint: endpoint, files: openai.NewFileService(opts...), batches: openai.NewBatchService(opts...), cfg: cfg}, nil
}

// Endpoint is the path each request of the batches goes to.
func (b *Batches) Endpoint() string { return b.endpoint }

func (b *Batches) err(err error) error {
	if err == nil {
		return nil
	}
	return apiError(endpointOf(b.name, &b.cfg), err)
}

// Create uploads the requests as a JSONL file and makes a batch of it.
func (b *Batches) Create(ctx context.Context, s batchapi.Submission, noteFile func(string) error) (*batchapi.Status, error) {
	var data bytes.Buffer
	url, _ := jsonesc.Marshal(b.endpoint)
	for _, l := range s.Lines {
		id, err := jsonesc.Marshal(l.CustomID)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&data, `{"custom_id":%s,"method":"POST","url":%s,"body":%s}`+"\n", id, url, l.Body)
	}
	f, err := b.files.New(ctx, openai.FileNewParams{
		File:    openai.File(bytes.NewReader(data.Bytes()), s.Name+".jsonl", "application/jsonl"),
		Purpose: openai.FilePurposeBatch,
	})
	if err != nil {
		return nil, b.err(err)
	}
	if err := noteFile(f.ID); err != nil {
		return nil, err
	}
	params := openai.BatchNewParams{
		InputFileID: f.ID, Endpoint: openai.BatchNewParamsEndpoint(b.endpoint),
		CompletionWindow: openai.BatchNewParamsCompletionWindow24h,
	}
	if len(s.Metadata) > 0 {
		params.Metadata = shared.Metadata(s.Metadata)
	}
	bt, err := b.batches.New(ctx, params)
	if err != nil {
		return nil, b.err(err)
	}
	return status(bt), nil
}

// Get reads a batch.
func (b *Batches) Get(ctx context.Context, id string) (*batchapi.Status, error) {
	bt, err := b.batches.Get(ctx, id)
	if err != nil {
		return nil, b.err(err)
	}
	return status(bt), nil
}

// Cancel asks for a batch to be cancelled; one that has ended already is
// read instead (the API's 409).
func (b *Batches) Cancel(ctx context.Context, id string) (*batchapi.Status, error) {
	bt, err := b.batches.Cancel(ctx, id)
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusConflict {
		return b.Get(ctx, id)
	}
	if err != nil {
		return nil, b.err(err)
	}
	return status(bt), nil
}

// Find looks, newest first, for the batch made of the input file fileID
// since since.
func (b *Batches) Find(ctx context.Context, since time.Time, fileID string, _ int) (*batchapi.Status, error) {
	if fileID == "" {
		return nil, nil
	}
	pager := b.batches.ListAutoPaging(ctx, openai.BatchListParams{Limit: openai.Int(100)})
	for pager.Next() {
		bt := pager.Current()
		if time.Unix(bt.CreatedAt, 0).Before(since.Truncate(time.Second)) {
			break
		}
		if bt.InputFileID == fileID {
			return status(&bt), nil
		}
	}
	return nil, b.err(pager.Err())
}

// Results reads the batch's output and error files.
func (b *Batches) Results(ctx context.Context, st *batchapi.Status) ([]batchapi.Result, error) {
	var out []batchapi.Result
	for _, id := range []string{st.OutputFileID, st.ErrorFileID} {
		if id == "" {
			continue
		}
		res, err := b.files.Content(ctx, id)
		if err != nil {
			return nil, b.err(err)
		}
		rs, err := readResultLines(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: file %s: %w", b.name, id, err)
		}
		out = append(out, rs...)
	}
	return out, nil
}

// readResultLines reads the lines of an output or error file.
func readResultLines(r io.Reader) ([]batchapi.Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	var out []batchapi.Result
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l struct {
			CustomID string `json:"custom_id"`
			Response *struct {
				StatusCode int             `json:"status_code"`
				Body       json.RawMessage `json:"body"`
			} `json:"response"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		r := batchapi.Result{CustomID: l.CustomID}
		switch {
		case l.Response != nil:
			r.Status, r.Body = l.Response.StatusCode, bytes.Clone(l.Response.Body)
		case l.Error != nil:
			r.Message = l.Error.Message
			switch l.Error.Code {
			case "batch_expired":
				r.NotRun = batchapi.NotRunExpired
			case "batch_cancelled":
				r.NotRun = batchapi.NotRunCancelled
			default:
				r.NotRun = batchapi.NotRunTimeout
			}
		default:
			return nil, fmt.Errorf("line %d: neither a response nor an error", n)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

func status(b *openai.Batch) *batchapi.Status {
	st := &batchapi.Status{
		ID: b.ID, State: string(b.Status), InputFileID: b.InputFileID, OutputFileID: b.OutputFileID, ErrorFileID: b.ErrorFileID,
		Counts:    map[string]int64{"total": b.RequestCounts.Total, "completed": b.RequestCounts.Completed, "failed": b.RequestCounts.Failed},
		CreatedAt: time.Unix(b.CreatedAt, 0).UTC(), ExpiresAt: time.Unix(b.ExpiresAt, 0).UTC(),
	}
	switch b.Status {
	case openai.BatchStatusCompleted, openai.BatchStatusFailed, openai.BatchStatusExpired:
		st.Ended = true
	case openai.BatchStatusCancelled:
		st.Ended, st.Cancelled = true, true
	case openai.BatchStatusCancelling:
		st.Cancelled = true
	}
	for _, e := range b.Errors.Data {
		st.Failed = append(st.Failed, batchapi.LineError{Line: int(e.Line), Code: e.Code, Message: e.Message})
	}
	return st
}

package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agentloop/agentloop/internal/jsonesc"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/provider"
)

// The Message Batches API: each request's params are the body a live call
// sends; the results are read back by custom_id. See internal/fakeapi's
// BATCH.md for the rules the calls follow.

var (
	_ batchapi.Codec   = (*Messages)(nil)
	_ batchapi.Service = (*Batches)(nil)
)

// BatchBody is the body Complete sends for req without streaming.
func (a *Messages) BatchBody(req *agent.Request) ([]byte, error) {
	r := *req
	r.OnText = nil
	return io.ReadAll(a.body(&r).Reader())
}

// BatchTurn reads a message of a batch's results as Complete reads one of
// the API.
func (a *Messages) BatchTurn(body []byte) (*agent.Turn, error) {
	var msg anthropic.Message
	if err := msg.UnmarshalJSON(body); err != nil {
		return nil, &agent.ProviderError{Provider: a.Name(), Message: "the batch's answer is not a message: " + err.Error(), Err: err}
	}
	turn, err := a.turn(&msg)
	if turn != nil {
		turn.ContextManagement = rawField(msg.JSON.ExtraFields, "context_management")
	}
	return turn, err
}

// BatchError is the error Complete returns for an error answer.
func (a *Messages) BatchError(status int, body []byte) *agent.ProviderError {
	return a.endpoint().BodyError(status, body)
}

func (a *Messages) endpoint() provider.Endpoint {
	return provider.Endpoint{Provider: a.Name(), Host: Host, KeyVar: "ANTHROPIC_API_KEY", HasKey: a.cfg.APIKey != "",
		Model: a.cfg.Model, ModelFrom: a.cfg.ModelFrom, BaseURL: a.given, URLFrom: a.cfg.BaseURLFrom, Retries: a.cfg.MaxRetries}
}

// errorStatus is the HTTP status the API answers an error type with: an
// errored result of a batch names only the type.
var errorStatus = map[string]int{
	"invalid_request_error": http.StatusBadRequest,
	"authentication_error":  http.StatusUnauthorized,
	"billing_error":         http.StatusPaymentRequired,
	"permission_error":      http.StatusForbidden,
	"not_found_error":       http.StatusNotFound,
	"request_too_large":     http.StatusRequestEntityTooLarge,
	"rate_limit_error":      http.StatusTooManyRequests,
	"api_error":             http.StatusInternalServerError,
	"timeout_error":         http.StatusGatewayTimeout,
	"overloaded_error":      529,
}

// Batches talks to the Message Batches endpoints.
type Batches struct {
	svc  anthropic.MessageBatchService
	a    *Messages
	beta bool
}

// Batches are the Message Batches endpoints at the provider's address,
// with the provider's key and beta headers.
func (a *Messages) Batches() (*Batches, error) {
	cfg := a.cfg
	return &Batches{svc: anthropic.NewMessageBatchService(requestOptions(&cfg)...), a: a, beta: cfg.ServerClearing.On()}, nil
}

// Endpoint is the path each request of the batches stands for.
func (b *Batches) Endpoint() string { return "/v1/messages" }

func (b *Batches) err(err error) error {
	if err == nil {
		return nil
	}
	return b.a.providerError(err)
}

// Create submits the requests as one message batch.
func (b *Batches) Create(ctx context.Context, s batchapi.Submission, _ func(string) error) (*batchapi.Status, error) {
	var data bytes.Buffer
	data.WriteString(`{"requests":[`)
	for i, l := range s.Lines {
		if i > 0 {
			data.WriteByte(',')
		}
		id, err := jsonesc.Marshal(l.CustomID)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&data, `{"custom_id":%s,"params":%s}`, id, l.Body)
	}
	data.WriteString(`]}`)
	opts := []aoption.RequestOption{aoption.WithRequestBody("application/json", data.Bytes())}
	if b.beta {
		// The same betas as the live requests of the run.
		opts = append(opts, aoption.WithHeaderAdd("anthropic-beta", ServerClearingBeta))
	}
	mb, err := b.svc.New(ctx, anthropic.MessageBatchNewParams{}, opts...)
	if err != nil {
		return nil, b.err(err)
	}
	return antStatus(mb), nil
}

// Get reads a batch.
func (b *Batches) Get(ctx context.Context, id string) (*batchapi.Status, error) {
	mb, err := b.svc.Get(ctx, id, anthropic.MessageBatchGetParams{})
	if err != nil {
		return nil, b.err(err)
	}
	return antStatus(mb), nil
}

// Cancel asks for a batch to be cancelled; one that has ended already is
// read instead.
func (b *Batches) Cancel(ctx context.Context, id string) (*batchapi.Status, error) {
	mb, err := b.svc.Cancel(ctx, id, anthropic.MessageBatchCancelParams{})
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
		if st, gerr := b.Get(ctx, id); gerr == nil && st.Ended {
			return st, nil
		}
	}
	if err != nil {
		return nil, b.err(err)
	}
	return antStatus(mb), nil
}

// Find looks, newest first, for a batch of n requests created since since:
// a message batch carries nothing else to know it by.
func (b *Batches) Find(ctx context.Context, since time.Time, _ string, n int) (*batchapi.Status, error) {
	pager := b.svc.ListAutoPaging(ctx, anthropic.MessageBatchListParams{Limit: anthropic.Int(100)})
	for pager.Next() {
		mb := pager.Current()
		if mb.CreatedAt.Before(since.Truncate(time.Second)) {
			break
		}
		c := mb.RequestCounts
		if int(c.Processing+c.Succeeded+c.Errored+c.Canceled+c.Expired) == n {
			return antStatus(&mb), nil
		}
	}
	return nil, b.err(pager.Err())
}

// Results reads an ended batch's results.
func (b *Batches) Results(ctx context.Context, st *batchapi.Status) ([]batchapi.Result, error) {
	s := b.svc.ResultsStreaming(ctx, st.ID, anthropic.MessageBatchResultsParams{})
	defer s.Close()
	var out []batchapi.Result
	for s.Next() {
		var l struct {
			CustomID string `json:"custom_id"`
			Result   struct {
				Type    string          `json:"type"`
				Message json.RawMessage `json:"message"`
				Error   json.RawMessage `json:"error"`
			} `json:"result"`
		}
		raw := s.Current().RawJSON()
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			return nil, fmt.Errorf("anthropic: the results of %s: %w", st.ID, err)
		}
		r := batchapi.Result{CustomID: l.CustomID}
		switch l.Result.Type {
		case "succeeded":
			r.Status, r.Body = http.StatusOK, l.Result.Message
		case "errored":
			var e struct {
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
			}
			_ = json.Unmarshal(l.Result.Error, &e)
			r.Status, r.Body = errorStatus[e.Error.Type], l.Result.Error
			if r.Status == 0 {
				r.Status = http.StatusInternalServerError
			}
		case "canceled":
			r.NotRun, r.Message = batchapi.NotRunCancelled, "the batch was canceled before this request ran"
		case "expired":
			r.NotRun, r.Message = batchapi.NotRunExpired, "the batch's 24 hours ended before this request ran"
		default:
			return nil, fmt.Errorf("anthropic: the results of %s: request %s has a result of type %q", st.ID, l.CustomID, l.Result.Type)
		}
		out = append(out, r)
	}
	if err := s.Err(); err != nil {
		return nil, b.err(err)
	}
	return out, nil
}

func antStatus(mb *anthropic.MessageBatch) *batchapi.Status {
	c := mb.RequestCounts
	st := &batchapi.Status{
		ID: mb.ID, State: string(mb.ProcessingStatus), CreatedAt: mb.CreatedAt, ExpiresAt: mb.ExpiresAt,
		Counts: map[string]int64{"processing": c.Processing, "succeeded": c.Succeeded, "errored": c.Errored, "canceled": c.Canceled, "expired": c.Expired},
	}
	st.Ended = mb.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded
	st.Cancelled = !mb.CancelInitiatedAt.IsZero()
	return st
}

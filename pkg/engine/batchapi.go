package engine

import (
	"fmt"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// BatchLane is the lane of a run's provider in a batch sent through the
// provider's Batch API (batch --batch-api): its body building and answer
// reading, its batch endpoints, and the retries its requests get. Requests
// of the same API, address and model go in one batch.
func BatchLane(p agent.Provider, maxRetries int) (*batchapi.Lane, error) {
	svc, err := batchService(p)
	if err != nil {
		return nil, err
	}
	codec, ok := p.(batchapi.Codec)
	if !ok {
		return nil, flagf("--batch-api: the %s provider has no Batch API", p.Name())
	}
	return &batchapi.Lane{Codec: codec, Service: svc, Endpoint: endpointOf(svc),
		Key: p.Name() + " " + BaseURLOf(p) + " " + p.Model(), MaxRetries: maxRetries}, nil
}

// BatchService is the Batch API of the provider m names (batch status,
// batch cancel).
func BatchService(m Model, net Net) (batchapi.Service, error) {
	p, err := NewProvider(m, net, nil)
	if err != nil {
		return nil, err
	}
	return batchService(p)
}

// batchEndpoints is what each provider's batch endpoints are, past the
// Service they all are.
type batchEndpoints interface {
	batchapi.Service
	Endpoint() string
}

func endpointOf(s batchapi.Service) string { return s.(batchEndpoints).Endpoint() }

func batchService(p agent.Provider) (batchapi.Service, error) {
	var (
		s   batchEndpoints
		err error
	)
	switch p := p.(type) {
	case *openai.Chat:
		s, err = p.Batches()
	case *openai.Responses:
		s, err = p.Batches()
	case *anthropic.Messages:
		s, err = p.Batches()
	default:
		return nil, flagf("--batch-api: the %s provider has no Batch API", p.Name())
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	return s, nil
}

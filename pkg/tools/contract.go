// Package tools: contract types (replaced by the real package on merge).
package tools

import (
	"context"
	"encoding/json"
	"time"
)

type Definition struct {
	Name        string
	Description string
	Parameters  json.RawMessage
	Strict      bool
	Confirm     bool
	Timeout     time.Duration
	MaxOutput   int64
	Env         []string
	Run         string
	Command     []string
	File        string
	Line        int
}

type Result struct {
	Content   string
	IsError   bool
	Kind      string
	ExitCode  int
	Duration  time.Duration
	Truncated bool
	Bytes     int64
}

type Registry struct{}

func (r *Registry) Call(ctx context.Context, name, callID string, args []byte) Result {
	return Result{}
}
func (r *Registry) Definitions() []*Definition { return nil }

func (r *Registry) Subset(names []string) (*Registry, error) { return r, nil }

func (r *Registry) Has(name string) bool { return false }

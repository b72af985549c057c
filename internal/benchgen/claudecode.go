package benchgen

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/pkg/wire"
)

// A Claude Code session log as Claude Code 2.1 writes it: each line carries
// the session's metadata (uuid, parentUuid, sessionId, cwd, version,
// gitBranch, timestamp); an assistant message is written a content block a
// line under one message.id, a thinking block first on some turns; the
// results of its calls follow as user lines with a toolUseResult, each
// under the line of its own call and in the order the tools finished (the
// results of parallel calls are sibling branches of the tree), the next
// line under the last written; progress and file-history-snapshot lines sit
// between; now and then a sub-agent's conversation (isSidechain) runs
// between the main chain's lines.

type ccGen struct {
	*gen
	parent  string // uuid of the main chain's last line
	session string
}

func (g *ccGen) uuid() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 36)
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
		default:
			b[i] = hex[g.r.IntN(16)]
		}
	}
	return string(b)
}

// line writes one log line on the chain whose last line is *parent.
func (g *ccGen) line(parent *string, sidechain bool, typ string, extra map[string]any) {
	u := g.uuid()
	m := map[string]any{
		"parentUuid": nil, "isSidechain": sidechain, "userType": "external", "cwd": "/home/dev/project",
		"sessionId": g.session, "version": "2.1.92", "gitBranch": "main", "type": typ, "uuid": u,
		"timestamp": g.now().Format(time.RFC3339Nano),
	}
	if *parent != "" {
		m["parentUuid"] = *parent
	}
	for k, v := range extra {
		m[k] = v
	}
	g.emit(m)
	*parent = u
}

func (g *ccGen) usage() map[string]any {
	return map[string]any{"input_tokens": g.r.IntN(10), "cache_creation_input_tokens": g.r.IntN(5000),
		"cache_read_input_tokens": g.r.IntN(100000), "output_tokens": g.r.IntN(2000), "service_tier": "standard"}
}

// turn writes an assistant message with calls, a block a line, and the
// results, on the chain of *parent.
func (g *ccGen) turn(parent *string, sidechain bool) {
	id := g.id("msg_01", 22)
	req := g.id("req_011C", 16)
	asst := func(block any, stop any) {
		g.line(parent, sidechain, "assistant", map[string]any{"requestId": req, "message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": "claude-opus-4-6", "content": []any{block},
			"stop_reason": stop, "stop_sequence": nil, "usage": g.usage()}})
	}
	if g.r.IntN(8) == 0 {
		asst(map[string]any{"type": "thinking", "thinking": g.text(400), "signature": g.id("", 300)}, nil)
	}
	if g.r.IntN(2) == 0 {
		asst(map[string]any{"type": "text", "text": g.text(150)}, nil)
	}
	cs := g.calls()
	lines := make([]string, len(cs)) // the line of each call
	for i, c := range cs {
		var stop any
		if i == len(cs)-1 {
			stop = "tool_use"
		}
		c.id = g.id("toolu_01", 22)
		cs[i] = c
		asst(map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.args)}, stop)
		lines[i] = *parent
	}
	if g.r.IntN(4) == 0 {
		p := *parent
		g.line(&p, sidechain, "progress", map[string]any{"data": map[string]any{"type": "hook_progress", "hookEvent": "PreToolUse"}})
	}
	g.r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j], lines[i], lines[j] = cs[j], cs[i], lines[j], lines[i] })
	for i, c := range cs {
		out := g.text(g.resultSize())
		*parent = lines[i]
		g.line(parent, sidechain, "user", map[string]any{
			"message":       map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": c.id, "type": "tool_result", "content": out, "is_error": false}}},
			"toolUseResult": map[string]any{"stdout": out[:min(len(out), 200)], "stderr": "", "interrupted": false}})
	}
}

func (g *ccGen) prompt(parent *string, sidechain bool) {
	g.line(parent, sidechain, "user", map[string]any{"message": map[string]any{"role": "user", "content": g.text(200 + g.r.IntN(400))}})
}

func (g *ccGen) answer(parent *string, sidechain bool) {
	g.line(parent, sidechain, "assistant", map[string]any{"requestId": g.id("req_011C", 16), "message": map[string]any{
		"id": g.id("msg_01", 22), "type": "message", "role": "assistant", "model": "claude-opus-4-6",
		"content": []any{map[string]any{"type": "text", "text": g.text(300)}}, "stop_reason": "end_turn", "usage": g.usage()}})
}

func writeClaudeCode(g *gen, size int64) {
	g.t = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &ccGen{gen: g}
	c.session = c.uuid()
	c.emit(map[string]any{"type": "summary", "summary": "Benchmark session", "leafUuid": c.uuid()})
	c.prompt(&c.parent, false)
	for g.written < size {
		switch n := g.r.IntN(40); {
		case n == 0:
			// A sub-agent's conversation, a chain of its own.
			var side string
			c.prompt(&side, true)
			for range 1 + g.r.IntN(4) {
				c.turn(&side, true)
			}
			c.answer(&side, true)
		case n == 1:
			c.emit(map[string]any{"type": "file-history-snapshot", "messageId": c.uuid(), "snapshot": map[string]any{
				"messageId": c.uuid(), "trackedFileBackups": map[string]any{}, "timestamp": g.now().Format(time.RFC3339Nano)}, "isSnapshotUpdate": false})
		case n < 5:
			c.answer(&c.parent, false)
			c.prompt(&c.parent, false)
		default:
			c.turn(&c.parent, false)
		}
	}
	c.answer(&c.parent, false)
}

// writeShape dispatches on the shapes Write takes.
func writeShape(g *gen, shape string, size int64) error {
	switch wire.Shape(shape) {
	case wire.Chat, wire.Messages:
		g.write(size)
	case "claude-code":
		writeClaudeCode(g, size)
	default:
		return fmt.Errorf("shape %q: want openai, anthropic or claude-code", shape)
	}
	return nil
}

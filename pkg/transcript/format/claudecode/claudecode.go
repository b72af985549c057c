// Package claudecode reads Claude Code session logs
// (~/.claude/projects/<project>/<session>.jsonl, and a sub-agent's
// <session>/subagents/agent-<id>.jsonl).
//
// A line is {"type": "user"|"assistant"|"system"|"progress"|…, "uuid",
// "parentUuid", "message": {an Anthropic message}, …}. The lines form a tree
// by parentUuid. Claude Code rebuilds the conversation it sends from it so
// (its session loader, from cli.js 2.1.80 on, and the Agent SDK's
// getSessionMessages): the path from the newest leaf up to a root; then,
// for each assistant message on that path (one message.id, written a
// content block a line), the lines of that message not on the path and
// every user line holding a tool_result whose parent is any line of that
// message, put after the message's last line on the path; then progress and
// system lines are dropped, consecutive user lines merged into one message,
// and the lines of one message.id merged across the results between them.
// The reason is how it writes a turn of parallel calls: each tool_result
// line's parentUuid is the line of its own call (not the line before it),
// the results come as the tools finish, out of call order at times, and the
// next line hangs off whichever line was written last, so the results of one
// message hang off different lines of it: sibling branches of the tree, all
// of them sent as one user message.
//
// The reader follows the tree as the lines come, without keeping it. It
// keeps a branch per open conversation (a session, a compaction's new
// start, a sub-agent's inline sidechain, a rewound branch), and for each the
// lines of its current turn: the lines of its last assistant message, the
// lines after them (results, prompts) and the lines that send nothing
// hanging off them (progress, hooks). A line whose parent is any of those
// goes on with that branch, as Claude Code's rebuilding puts it there; a
// new assistant message starts a new turn, and the lines of the one before
// are forgotten. A line whose parent is an earlier message line (a rewind:
// Claude Code writes the next prompt under the message it was rewound to)
// starts a branch checked from there on, without the calls made before it.
// A line whose parent is not in the file (taken out, or written by a
// broken writer) is a missing-parent warning, read as following the last
// line of its kind (sidechain or not): the gap then shows as what it left
// unanswered.
package claudecode

import (
	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// Name is the format's name.
const Name = "claude-code"

// Format is the format of Claude Code session logs.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "Claude Code session", Writer: "Claude Code",
		Example: "~/.claude/projects/<project>/<session>.jsonl (sub-agents: <session>/subagents/agent-*.jsonl)"}
}

// Sniff knows a session by its first line: Claude Code's keys (parentUuid,
// sessionId…) with a type, a line type only Claude Code writes, or, less
// surely, a user or assistant line wrapping its message as only Claude
// Code does (a line trimmed of its tree's keys).
func (format) Sniff(h *check.Head) check.Confidence {
	line, ok := h.Line()
	if !ok || line.Kind != check.KindObject {
		return check.No
	}
	t := line.Type()
	claude := line.Has("parentUuid", check.KindAbsent) || line.Has("leafUuid", check.KindAbsent) ||
		line.Has("sessionId", check.KindAbsent) || line.Has("isSidechain", check.KindAbsent)
	switch {
	case claude && t != "", t == "file-history-snapshot", t == "queue-operation":
		return check.Certain
	case (t == "user" || t == "assistant") && line.Has("message", check.KindObject):
		return check.Likely
	}
	return check.No
}

func (format) Open(f *check.File) error {
	v := &reader{f: f, owner: map[uint64]*branch{}, recent: map[uint64]node{}}
	if err := f.Lines(v.line); err != nil || f.Stopped() {
		return err
	}
	v.finish()
	return nil
}

// branch is one conversation of the tree being read, and where it has got
// to.
type branch struct {
	conv *check.Conv
	// turn are the message lines (hashed uuids) of its current turn, and
	// pass the lines that send nothing hanging off them; each is a key of
	// reader.owner naming this branch.
	turn, pass []uint64
	asstID     uint64 // message.id (hashed) of its last assistant message; 0 if none
	asstIdx    int    // that message's index
	index      int    // index of its last message; -1 before the first
	role       byte   // 'u' or 'a' for the last message, 0 before the first
	messages   int
	side       bool // a sidechain's (a sub-agent's)
	used       int  // when it was last extended, to close the least used
}

// reader is what is known of a Claude Code file so far.
type reader struct {
	f        *check.File
	branches []*branch
	owner    map[uint64]*branch // the lines of each branch's current turn
	recent   map[uint64]node    // recent message lines, for where a rewound branch starts
	last     [2]*branch         // the branch the last line extended, of the main chain and of sidechains
	clock    int

	// Lines of other logs: reported each once a Claude Code line has been
	// read; before that, held as a count and the first of them, so a file
	// of nothing else is one no-conversation, not an error a line.
	seen     bool
	held     int
	heldLine int
	heldWhat string
}

// node is where a message line stood in its conversation.
type node struct {
	index int32
	role  byte
}

const (
	maxBranches = 256     // open branches kept; the least recently extended is closed beyond
	maxRecent   = 1 << 16 // message lines remembered for branch points
	// maxTurn bounds the lines of a turn a branch remembers, of each kind:
	// past it the oldest are forgotten (a turn of thousands of progress
	// lines is named, later, only by its newest).
	maxTurn = 4096
)

// entry is what the reader takes from a line besides its message.
type entry struct {
	typ, uuid, parent, msgID []byte
	hasParent, parentNull    bool
	message, skip            bool
	side                     bool // isSidechain
	compactSummary           bool // the summary a compaction starts the conversation with
	summariser               bool // a line of a compaction's summariser, whose parents are in the session
	hasType, hasRole, callID bool
}

// line reads one line of a Claude Code log.
func (v *reader) line(text []byte, n int, complete bool) {
	f := v.f
	if !f.ObjectLine(text, n, complete, "a Claude Code log entry") {
		return
	}
	s := f.Scanner()
	m := f.Msg()
	m.Reset(n, 0)
	var e entry
	s.Enter('{')
	for k := 0; s.Next('}', &k); {
		switch string(s.Key()) {
		case "type":
			e.hasType = true
			e.typ = s.StringOrSkip()
		case "role":
			e.hasRole = true
			s.Skip()
		case "call_id":
			e.callID = true
			s.Skip()
		case "uuid":
			e.uuid = s.StringOrSkip()
		case "parentUuid":
			e.hasParent = true
			e.parentNull = s.PeekKind() == check.KindNull
			e.parent = s.StringOrSkip()
		case "message":
			if s.PeekKind() == check.KindObject {
				e.message = true
				s.ReadMsg(m)
				e.msgID = m.ID()
				continue
			}
			s.Skip()
		case "isSidechain":
			e.side = s.Bool()
		case "isCompactSummary":
			e.compactSummary = s.Bool()
		case "agentId":
			// The compaction summariser's lines (agent-acompact-….jsonl)
			// copy lines of the session, parents and all.
			id := s.StringOrSkip()
			e.summariser = len(id) > 9 && string(id[:9]) == "acompact-"
		case "isApiErrorMessage", "isVisibleInTranscriptOnly":
			// Lines Claude Code shows but does not send: API errors
			// written as assistant messages, and the like.
			e.skip = s.Bool() || e.skip
		default:
			s.Skip()
		}
	}
	s.End()
	if s.Err() != nil {
		f.NotJSON(text, n, complete)
		for _, b := range v.last {
			if b != nil {
				b.conv.Lost()
			}
		}
		return
	}
	if e.compactSummary {
		// Shown only in the transcript view, but sent: the conversation
		// after a compaction starts with it.
		e.skip = false
	}
	t := string(e.typ)
	if what := foreign(t, e.hasType, e.hasRole, e.callID); what != "" {
		v.foreignLine(n, what)
		return
	}
	if len(e.uuid) > 0 || t == "user" || t == "assistant" || t == "summary" || t == "system" {
		v.claudeLine()
	}
	if !e.message && !e.skip && (t == "user" || t == "assistant") {
		f.Finding(n, check.Error, "invalid-record", "a %s line without a message object: it is not checked", e.typ)
	}
	if !e.message || e.skip || (t != "user" && t != "assistant") {
		if !lineTypes[t] {
			// A line type of Claude Code's that is new: it sends
			// nothing that validate knows of.
			f.PassedOver()
		}
		v.passThrough(&e)
		return
	}
	if m.HasRole() && string(m.Role()) != t {
		f.Finding(n, check.Error, "invalid-record", "a line of type %q holds a message of role %q: Claude Code writes the two alike", e.typ, m.Role())
	}
	b := v.branchOf(n, &e)
	v.clock++
	b.used = v.clock
	v.last[side(b.side)] = b

	// Where the line stands in the conversation Claude Code sends.
	role := byte('u')
	if string(m.Role()) == "assistant" {
		role = 'a'
	}
	var id uint64
	if len(e.msgID) > 0 {
		id = f.Hash(e.msgID)
	}
	continues := false
	switch {
	case role == 'a' && id != 0 && id == b.asstID:
		// Another block of the message: its calls join those the turn
		// answers.
		continues = true
		m.SetIndex(b.asstIdx)
	case role == 'u' && b.role == 'u':
		// Consecutive user lines are one message.
		continues = true
		m.SetIndex(b.index)
	default:
		b.index++
		m.SetIndex(b.index)
		if role == 'a' {
			v.newTurn(b)
			b.asstID, b.asstIdx = id, b.index
		}
	}
	if continues {
		m.SetContinues()
	}
	if !(continues && role == 'a') {
		b.role = role
	}
	b.messages++
	if b.messages == 1 {
		f.AddConversations(1)
	}
	b.conv.Add(m)
	if len(e.uuid) > 0 {
		h := f.Hash(e.uuid)
		v.own(b, h, false)
		if len(v.recent) >= maxRecent {
			clear(v.recent)
		}
		v.recent[h] = node{index: int32(m.Index()), role: role}
	}
}

// side is the index of v.last for a line of a sidechain or not.
func side(sidechain bool) int {
	if sidechain {
		return 1
	}
	return 0
}

// own makes the line h one of b's current turn: a message line, or one
// that sends nothing (pass).
func (v *reader) own(b *branch, h uint64, pass bool) {
	list := &b.turn
	if pass {
		list = &b.pass
	}
	if len(*list) >= maxTurn {
		// The oldest of a long run: only the newest can still be named.
		for _, k := range (*list)[:maxTurn/2] {
			if v.owner[k] == b {
				delete(v.owner, k)
			}
		}
		*list = append((*list)[:0], (*list)[maxTurn/2:]...)
	}
	v.owner[h] = b
	*list = append(*list, h)
}

// newTurn forgets the lines of b's turn: an assistant message starts
// another.
func (v *reader) newTurn(b *branch) {
	for _, list := range [][]uint64{b.turn, b.pass} {
		for _, k := range list {
			if v.owner[k] == b {
				delete(v.owner, k)
			}
		}
	}
	b.turn, b.pass = b.turn[:0], b.pass[:0]
}

// branchOf finds the branch a message line goes on with, or starts one.
func (v *reader) branchOf(line int, e *entry) *branch {
	last := v.last[side(e.side)]
	switch {
	case !e.hasParent:
		// A log without parentUuid (older versions, hand-made files):
		// the lines are in order.
		if last != nil {
			return last
		}
		return v.newBranch(line, e.side, nil)
	case e.parentNull || len(e.parent) == 0:
		return v.newBranch(line, e.side, nil)
	}
	h := v.f.Hash(e.parent)
	if b, ok := v.owner[h]; ok {
		return b
	}
	// A branch from an earlier line, or from a line this file does not
	// have.
	if at, ok := v.recent[h]; ok {
		return v.newBranch(line, e.side, &at)
	}
	if last != nil {
		// A parent the file does not have: most likely a line was taken
		// out. The line goes on from the one before it, where the gap
		// shows as what it left unanswered. A compaction's summariser
		// copies lines of the session, parents and all: no line is
		// missing there.
		if !e.summariser {
			v.f.Finding(line, check.Warning, "missing-parent", "parentUuid %s names no line read before this one: a line is missing; read as following the line before", e.parent)
		}
		return last
	}
	// The first line of a file that continues another.
	b := v.newBranch(line, e.side, nil)
	b.conv.Resume("", 0, line)
	return b
}

// newBranch starts a branch at line: a root when from is nil, else a
// branch from the message line from describes.
func (v *reader) newBranch(line int, sidechain bool, from *node) *branch {
	if len(v.branches) >= maxBranches {
		v.close(v.leastUsed())
	}
	b := &branch{index: -1, side: sidechain}
	b.conv = v.f.NewConv(line, check.ConvTranscript)
	b.conv.SetSplit()
	b.conv.Presume(check.ShapeAnthropic)
	if from != nil {
		// Checked from the branch point on: the calls made before it
		// are not known here.
		b.index = int(from.index)
		b.role = from.role
		b.conv.Resume(map[byte]string{'u': "user", 'a': "assistant"}[from.role], int(from.index), line)
	}
	v.branches = append(v.branches, b)
	return b
}

func (v *reader) leastUsed() *branch {
	var lu *branch
	for _, b := range v.branches {
		if lu == nil || b.used < lu.used {
			lu = b
		}
	}
	return lu
}

// close finishes a branch and forgets it.
func (v *reader) close(b *branch) {
	if b.messages > 0 {
		b.conv.Finish()
	}
	v.newTurn(b)
	for i, c := range v.branches {
		if c == b {
			v.branches = append(v.branches[:i], v.branches[i+1:]...)
			break
		}
	}
	for i := range v.last {
		if v.last[i] == b {
			v.last[i] = nil
		}
	}
}

// foreignLine reports line n, which is what, not a Claude Code line.
func (v *reader) foreignLine(n int, what string) {
	if !v.seen {
		if v.held == 0 {
			v.heldLine, v.heldWhat = n, what
		}
		v.held++
		return
	}
	v.f.Finding(n, check.Error, "invalid-record", "line is %s, not a Claude Code log entry: it is not checked", what)
}

// claudeLine notes a Claude Code line, and reports the lines of other logs
// held before it.
func (v *reader) claudeLine() {
	if v.seen {
		return
	}
	v.seen = true
	switch {
	case v.held == 1:
		v.f.Finding(v.heldLine, check.Error, "invalid-record", "line is %s, not a Claude Code log entry: it is not checked", v.heldWhat)
	case v.held > 1:
		v.f.Finding(v.heldLine, check.Error, "invalid-record", "line is %s, not a Claude Code log entry, and so are %d more lines before the first Claude Code line: they are not checked", v.heldWhat, v.held-1)
	}
}

// foreign says what a line of a Claude Code log is when it is a line of
// another log (a Codex rollout's, an agentloop transcript's) or a bare
// message, none of which Claude Code writes; "" for a Claude Code line.
// Line types it does not know are taken for Claude Code's own, which adds
// new ones (progress, queue-operation…) that send nothing. A "result" line
// is agentloop's only with its call_id: Claude Code's print mode ends its
// stream-json output with a result line of its own.
func foreign(t string, hasType, hasRole, hasCallID bool) string {
	switch {
	case t == "session_meta", t == "response_item", t == "event_msg", t == "turn_context", t == "compacted":
		return "a Codex rollout line"
	case t == "header", t == "end", t == "result" && hasCallID:
		return "an agentloop transcript record"
	case t == "message", hasRole:
		return "a message without Claude Code's keys"
	case !hasType:
		return `an object without a "type"`
	}
	return ""
}

// lineTypes are the types of the lines Claude Code writes (its loader's
// list, cli.js 2.1.39 to 2.1.332): messages, and the lines that send
// nothing: progress, system notes (a compaction's boundary, hooks'
// summaries), attachments, and the session's metadata. Lines of another
// type are counted as passed over.
var lineTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "progress": true, "attachment": true, "summary": true,
	"file-history-snapshot": true, "queue-operation": true, "custom-title": true, "tag": true, "agent-name": true,
	"agent-color": true, "agent-setting": true, "mode": true, "pr-link": true, "attribution-snapshot": true,
	"content-replacement": true, "marble-origami-commit": true, "marble-origami-snapshot": true, "ai-title": true,
	"last-prompt": true,
}

// passThrough records a line that sends nothing (system, progress,
// attachment, file-history-snapshot lines, and the like) but that later
// lines may name as their parent: it stands where its parent does.
func (v *reader) passThrough(e *entry) {
	if len(e.uuid) == 0 {
		return
	}
	var b *branch
	switch {
	case !e.hasParent:
		b = v.last[side(e.side)]
	case e.parentNull || len(e.parent) == 0:
		// A new root: a compaction's boundary, which the summary after it
		// names as its parent.
		b = v.newBranch(0, e.side, nil)
	default:
		b = v.owner[v.f.Hash(e.parent)]
	}
	if b == nil {
		return
	}
	v.own(b, v.f.Hash(e.uuid), true)
}

// finish ends every open branch at the end of the file.
func (v *reader) finish() {
	for _, b := range v.branches {
		if b.messages > 0 {
			b.conv.Finish()
		}
	}
	if v.f.Messages() == 0 {
		v.f.NothingChecked("no user or assistant line in this Claude Code session")
	}
}

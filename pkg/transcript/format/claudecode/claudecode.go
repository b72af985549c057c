// Package claudecode reads Claude Code session logs
// (~/.claude/projects/<project>/<session>.jsonl).
//
// A line is {"type": "user"|"assistant"|"system"|"summary"|…, "uuid",
// "parentUuid", "message": {an Anthropic message}, …}. The lines form a tree
// by parentUuid: the conversation Claude Code sent is the path from a root
// (parentUuid null) to a leaf. Rewinding a conversation starts a branch
// from an earlier line; a compaction starts a new root; a sub-agent's
// conversation (isSidechain) has a root of its own. An assistant message is
// written a content block a line, all lines with one message.id, and the
// results of its calls, each a user line, may come between them: the lines
// of one message id are one message, and consecutive user lines one turn.
//
// The reader keeps a chain per open branch, each a conversation checked as
// lines extend it; a line extends the chain whose last line is its parent.
// It does not keep the whole tree: a line whose parent is older than the
// last line of its chain starts a branch that is checked from there on,
// without the state before it (its first results are not matched against
// calls made before the branch point).
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
	v := &reader{f: f, tips: map[uint64]*ccChain{}, recent: map[uint64]ccNode{}}
	if err := f.Lines(v.ccLine); err != nil || f.Stopped() {
		return err
	}
	v.ccFinish()
	return nil
}

// ccChain is one branch of the tree being read: a conversation and where
// it has got to.
type ccChain struct {
	conv     *check.Conv
	keys     []uint64 // the uuids (hashed) in reader.tips naming its last line
	asstID   uint64   // message.id (hashed) of its last assistant message; 0 if none
	asstIdx  int      // that message's index
	index    int      // index of its last message; -1 before the first
	role     byte     // 'u' or 'a' for the last message, 0 before the first
	messages int
	used     int // when it was last extended, to close the least used
}

// reader is the state of a Claude Code file.
type reader struct {
	f *check.File

	chains []*ccChain
	tips   map[uint64]*ccChain
	recent map[uint64]ccNode // recent message lines, for where a branch starts
	last   *ccChain          // the chain the last line extended
	clock  int

	// Lines of other logs: reported each once a Claude Code line has been
	// read; before that, held as a count and the first of them, so a file
	// of nothing else is one no-conversation, not an error a line.
	seen     bool
	held     int
	heldLine int
	heldWhat string
}

// ccNode is where a message line stood in its conversation.
type ccNode struct {
	index int32
	role  byte
}

const (
	maxChains = 256     // open branches kept; the least recently extended is closed beyond
	maxRecent = 1 << 16 // message lines remembered for branch points
)

// ccLine reads one line of a Claude Code log.
func (v *reader) ccLine(text []byte, n int, complete bool) {
	f := v.f
	if !f.ObjectLine(text, n, complete, "a Claude Code log entry") {
		return
	}
	s := f.Scanner()
	m := f.Msg()
	m.Reset(n, 0)
	var typ, uuid, parent, msgID []byte
	hasParent, parentNull, message, skip := false, false, false, false
	hasType, hasRole, hasCallID := false, false, false
	s.Enter('{')
	for k := 0; s.Next('}', &k); {
		switch string(s.Key()) {
		case "type":
			hasType = true
			typ = s.StringOrSkip()
		case "role":
			hasRole = true
			s.Skip()
		case "call_id":
			hasCallID = true
			s.Skip()
		case "uuid":
			uuid = s.StringOrSkip()
		case "parentUuid":
			hasParent = true
			parentNull = s.PeekKind() == check.KindNull
			parent = s.StringOrSkip()
		case "message":
			if s.PeekKind() == check.KindObject {
				message = true
				s.ReadMsg(m)
				msgID = m.ID()
				continue
			}
			s.Skip()
		case "isApiErrorMessage", "isVisibleInTranscriptOnly":
			// Lines Claude Code shows but does not send: API errors
			// written as assistant messages, and the like.
			skip = s.Bool() || skip
		default:
			s.Skip()
		}
	}
	s.End()
	if s.Err() != nil {
		f.NotJSON(text, n, complete)
		if v.last != nil {
			v.last.conv.Lost()
		}
		return
	}
	t := string(typ)
	if what := ccForeign(t, hasType, hasRole, hasCallID); what != "" {
		v.ccForeignLine(n, what)
		return
	}
	if len(uuid) > 0 || t == "user" || t == "assistant" || t == "summary" || t == "system" {
		v.ccSeen()
	}
	if !message && !skip && (t == "user" || t == "assistant") {
		v.f.Finding(n, check.Error, "invalid-record", "a %s line without a message object: it is not checked", typ)
	}
	if !message || skip || (t != "user" && t != "assistant") {
		v.ccPassThrough(uuid, parent, hasParent, parentNull)
		return
	}
	if m.HasRole() && string(m.Role()) != t {
		v.f.Finding(n, check.Error, "invalid-record", "a line of type %q holds a message of role %q: Claude Code writes the two alike", typ, m.Role())
	}
	cs := v
	ch := v.ccParentChain(n, parent, hasParent, parentNull)
	cs.clock++
	ch.used = cs.clock
	cs.last = ch
	for _, k := range ch.keys {
		if cs.tips[k] == ch {
			delete(cs.tips, k)
		}
	}
	ch.keys = ch.keys[:0]
	if len(uuid) > 0 {
		h := v.hash(uuid)
		cs.tips[h] = ch
		ch.keys = append(ch.keys, h)
	}

	// Where the line stands in the conversation Claude Code sends.
	role := byte('u')
	if string(m.Role()) == "assistant" {
		role = 'a'
	}
	var id uint64
	if len(msgID) > 0 {
		id = v.hash(msgID)
	}
	continues := false
	switch {
	case role == 'a' && id != 0 && id == ch.asstID:
		continues = true
		m.SetIndex(ch.asstIdx)
	case role == 'u' && ch.role == 'u':
		continues = true
		m.SetIndex(ch.index)
	default:
		ch.index++
		m.SetIndex(ch.index)
		if role == 'a' {
			ch.asstID, ch.asstIdx = id, ch.index
		}
	}
	if continues {
		m.SetContinues()
	}
	if !(continues && role == 'a') {
		ch.role = role
	}
	ch.messages++
	if ch.messages == 1 {
		v.f.AddConversations(1)
	}
	ch.conv.Add(m)
	if len(uuid) > 0 {
		if len(cs.recent) >= maxRecent {
			clear(cs.recent)
		}
		cs.recent[v.hash(uuid)] = ccNode{index: int32(m.Index()), role: role}
	}
}

// hash hashes an id with the file's seed.
func (v *reader) hash(b []byte) uint64 { return v.f.Hash(b) }

// ccParentChain finds the chain a line with this parent extends, or starts
// one.
func (v *reader) ccParentChain(line int, parent []byte, hasParent, parentNull bool) *ccChain {
	cs := v
	switch {
	case !hasParent:
		// A log without parentUuid (older versions, hand-made files):
		// the lines are in order.
		if cs.last != nil {
			return cs.last
		}
		return v.ccNewChain(line, nil)
	case parentNull || len(parent) == 0:
		return v.ccNewChain(line, nil)
	}
	h := v.hash(parent)
	if ch, ok := cs.tips[h]; ok {
		return ch
	}
	// A branch from an earlier line, or from a line this file does not
	// have.
	if at, ok := cs.recent[h]; ok {
		return v.ccNewChain(line, &at)
	}
	if cs.last != nil {
		// A parent the file does not have: most likely a line was taken
		// out. The line goes on from the one before it, where the gap
		// shows as what it left unanswered.
		v.f.Finding(line, check.Warning, "missing-parent", "parentUuid %s names no line read before this one: a line is missing; read as following the line before", parent)
		return cs.last
	}
	// The first line of a file that continues another.
	ch := v.ccNewChain(line, nil)
	ch.conv.Resume("", 0, line)
	return ch
}

// ccNewChain starts a chain at line: a root when from is nil, else a branch
// from the message line from describes.
func (v *reader) ccNewChain(line int, branch *ccNode) *ccChain {
	cs := v
	if len(cs.chains) >= maxChains {
		v.ccClose(cs.leastUsed())
	}
	ch := &ccChain{index: -1}
	ch.conv = v.f.NewConv(line, check.ConvTranscript)
	ch.conv.SetSplit()
	ch.conv.Presume(check.ShapeAnthropic)
	if branch != nil {
		// Checked from the branch point on: the calls made before it
		// are not known here.
		ch.index = int(branch.index)
		ch.role = branch.role
		ch.conv.Resume(map[byte]string{'u': "user", 'a': "assistant"}[branch.role], int(branch.index), line)
	}
	cs.chains = append(cs.chains, ch)
	return ch
}

func (cs *reader) leastUsed() *ccChain {
	var lu *ccChain
	for _, ch := range cs.chains {
		if lu == nil || ch.used < lu.used {
			lu = ch
		}
	}
	return lu
}

// ccClose finishes a chain and forgets it.
func (v *reader) ccClose(ch *ccChain) {
	cs := v
	if ch.messages > 0 {
		ch.conv.Finish()
	}
	for _, k := range ch.keys {
		if cs.tips[k] == ch {
			delete(cs.tips, k)
		}
	}
	for i, c := range cs.chains {
		if c == ch {
			cs.chains = append(cs.chains[:i], cs.chains[i+1:]...)
			break
		}
	}
	if cs.last == ch {
		cs.last = nil
	}
}

// ccForeignLine reports line n, which is what, not a Claude Code line.
func (v *reader) ccForeignLine(n int, what string) {
	cs := v
	if !cs.seen {
		if cs.held == 0 {
			cs.heldLine, cs.heldWhat = n, what
		}
		cs.held++
		return
	}
	v.f.Finding(n, check.Error, "invalid-record", "line is %s, not a Claude Code log entry: it is not checked", what)
}

// ccSeen notes a Claude Code line, and reports the lines of other logs
// held before it.
func (v *reader) ccSeen() {
	cs := v
	if cs.seen {
		return
	}
	cs.seen = true
	switch {
	case cs.held == 1:
		v.f.Finding(cs.heldLine, check.Error, "invalid-record", "line is %s, not a Claude Code log entry: it is not checked", cs.heldWhat)
	case cs.held > 1:
		v.f.Finding(cs.heldLine, check.Error, "invalid-record", "line is %s, not a Claude Code log entry, and so are %d more lines before the first Claude Code line: they are not checked", cs.heldWhat, cs.held-1)
	}
}

// ccForeign says what a line of a Claude Code log is when it is a line of
// another log (a Codex rollout's, an agentloop transcript's) or a bare
// message, none of which Claude Code writes; "" for a Claude Code line.
// Line types it does not know are taken for Claude Code's own, which adds
// new ones (progress, queue-operation…) that send nothing. A "result" line
// is agentloop's only with its call_id: Claude Code's print mode ends its
// stream-json output with a result line of its own.
func ccForeign(t string, hasType, hasRole, hasCallID bool) string {
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

// ccPassThrough records a line that sends nothing (system, progress,
// attachment, file-history-snapshot lines, and the like) but that later
// lines may name as their parent: it stands where its parent does.
func (v *reader) ccPassThrough(uuid, parent []byte, hasParent, parentNull bool) {
	if len(uuid) == 0 {
		return
	}
	cs := v
	var ch *ccChain
	switch {
	case !hasParent:
		ch = cs.last
	case parentNull || len(parent) == 0:
		// A new root: a compaction's boundary, which the summary after it
		// names as its parent.
		ch = v.ccNewChain(0, nil)
	default:
		ch = cs.tips[v.hash(parent)]
	}
	if ch == nil {
		return
	}
	h := v.hash(uuid)
	cs.tips[h] = ch
	ch.keys = append(ch.keys, h)
	if len(ch.keys) > 4096 {
		// A long run of progress lines: only the newest can still be named.
		for _, k := range ch.keys[:2048] {
			if cs.tips[k] == ch {
				delete(cs.tips, k)
			}
		}
		ch.keys = append(ch.keys[:0], ch.keys[2048:]...)
	}
}

// ccFinish ends every open chain at the end of the file.
func (v *reader) ccFinish() {
	for _, ch := range v.chains {
		if ch.messages > 0 {
			ch.conv.Finish()
		}
	}
	if v.f.Messages() == 0 {
		v.f.NothingChecked("no user or assistant line in this Claude Code session")
	}
}

package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/bytesize"
)

// Reading a file: what it is, from its content, and the loop over its lines
// or its document.

// detectWindow is how much of the start of a file is looked at to tell its
// format, and the size of the read buffer.
const detectWindow = 1 << 20

func (v *validator) run(r io.Reader) error {
	br := bufio.NewReaderSize(r, detectWindow)
	if dr, err := v.decoded(br); dr != nil || err != nil {
		if err != nil {
			return err
		}
		return v.run(dr)
	}
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	peek, err := br.Peek(detectWindow)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return fmt.Errorf("read %s: %w", v.name, err)
	}
	if bytes.HasPrefix(peek, []byte("PK\x03\x04")) {
		// Inspect AI's default .eval logs are ZIP archives, read from a
		// file (a ZIP is read from its end).
		if ra, size, ok := zipSource(r); ok && (v.opts.Input == "" || v.opts.Input == InputInspect) {
			v.evalZip(ra, size)
			return nil
		}
		v.stopped, v.format = true, "zip"
		v.fileFinding(1, Error, "binary-file", "a ZIP archive, not text; an Inspect AI .eval log is read from a file, not from a pipe")
		return nil
	}
	if be := binaryAt(peek); be != nil {
		v.binary(be)
		return nil
	}
	if len(bytes.TrimSpace(peek)) == 0 {
		v.noConv = "the file is empty"
	}
	input := v.opts.Input
	if input == "" && isCassette(peek) {
		input = InputVCR
	}
	stream := false
	switch input {
	case InputVCR:
		v.format = InputVCR
		lr := v.lineReader(br)
		return v.cassette(lr)
	case InputAgentloop:
		v.kind = linesAgentloop
	case InputMessages:
		v.kind = linesMessages
	case InputConversations:
		v.kind = linesConversations
	case InputClaudeCode:
		v.kind = linesClaudeCode
	case InputCodex:
		v.kind = linesCodex
	case InputRequest, InputInspect, InputSWEAgent, InputHAR:
		v.format = input
		stream = true
	default:
		stream = detectStream(peek)
	}
	line := 0
	if stream {
		var more bool
		line, more, err = v.streamDoc(br)
		if err != nil || !more || v.stopped {
			v.finishFile()
			return err
		}
	}
	lr := v.lineReader(br)
	lr.line = line
	if line > 0 {
		lr.line = line - 1 // the rest of the document's last line comes first
	}
	return v.lines(lr)
}

func (v *validator) lineReader(br *bufio.Reader) *LineReader {
	lr := NewLineReader(br)
	lr.SetLimits(v.opts.MaxLine, true)
	return lr
}

// binaryAt finds what makes data binary: a NUL byte, which no text format
// holds, or a start that is mostly control bytes.
func binaryAt(data []byte) *BinaryError {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		line := 1 + bytes.Count(data[:i], []byte{'\n'})
		col := i - bytes.LastIndexByte(data[:i], '\n')
		return &BinaryError{Line: line, Column: col}
	}
	head := data[:min(len(data), 4096)]
	if len(head) < 64 {
		return nil
	}
	ctl := 0
	for _, c := range head {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' {
			ctl++
		}
	}
	if ctl*10 > len(head) {
		return &BinaryError{Line: 1, Column: 1}
	}
	return nil
}

// binary gives up a file of binary data with one finding, as grep says
// "binary file matches" rather than print it.
func (v *validator) binary(e *BinaryError) {
	v.stopped = true
	if v.format == "" && v.kind == linesUnknown {
		v.format = "binary"
	}
	v.fileFinding(e.Line, Error, "binary-file", "binary data, not text (%s); the file is not checked further", binaryWhat(e))
}

func binaryWhat(e *BinaryError) string {
	if e.Column > 0 && e.Line > 0 {
		return fmt.Sprintf("a NUL byte at line %d, column %d", e.Line, e.Column)
	}
	return "control bytes"
}

// readError reports an error of the reader: binary data and over-long
// lines are findings; anything else is the file being unreadable.
func (v *validator) readError(err error) error {
	var be *BinaryError
	if errors.As(err, &be) {
		v.binary(be)
		return nil
	}
	return fmt.Errorf("read %s: %w", v.name, err)
}

// tooLong reports a line (or a value of a streamed document) over the
// length limit, which was read to its end and dropped.
func (v *validator) tooLong(line int, what string) {
	v.fileFinding(line, Error, "line-too-long", "%s is longer than %s, the most validate holds in memory; it is not checked (raise the limit with --max-line)",
		what, bytesize.Format(int64(v.opts.MaxLine)))
	if v.conv.v != nil {
		v.conv.lost()
	}
}

// detectStream tells a whole-file JSON document from JSONL by the first
// line: an array, or an object whose first line is not a whole JSON value,
// is one document.
func detectStream(peek []byte) bool {
	i := 0
	for i < len(peek) && (peek[i] == ' ' || peek[i] == '\t' || peek[i] == '\n' || peek[i] == '\r') {
		i++
	}
	if i == len(peek) {
		return false
	}
	switch peek[i] {
	case '[':
		return true
	case '{':
	default:
		return false
	}
	j := bytes.IndexByte(peek[i:], '\n')
	if j < 0 && len(peek) == detectWindow {
		// No newline in the window: one long line, streamed if it is a
		// document; a huge first message or record is one JSONL line like
		// any.
		return !startsRecord(peek[i:])
	}
	first := peek[i:]
	if j >= 0 {
		first = first[:j]
	}
	first = bytes.TrimSuffix(first, []byte("\r"))
	var s scanner
	s.reset(first)
	s.skip()
	s.end()
	// A first line that stops short is the start of a pretty-printed document.
	if s.err != nil {
		return s.err.off >= len(first)
	}
	// A whole document on one line: an Inspect AI log, a SWE-agent
	// trajectory or a HAR file written without indentation.
	return isLogDocument(first)
}

// isLogDocument reports whether an object has the top-level keys of a log
// read as a whole-file document rather than as a line of JSONL.
func isLogDocument(b []byte) bool {
	var s scanner
	s.reset(b)
	s.enter('{')
	for n := 0; s.next('}', &n) && s.err == nil; {
		k, kind := string(s.key()), s.peekKind()
		switch {
		case k == "log" && kind == kindObject, k == "eval" && kind == kindObject,
			k == "samples" && kind == kindArray, k == "trajectory" && kind == kindArray, k == "history" && kind == kindArray:
			return true
		}
		s.skip()
	}
	return false
}

// startsRecord reports whether the top-level keys visible in the start of
// an object are those of a message or a log line rather than of a request
// body or another whole-file document.
func startsRecord(b []byte) bool {
	var s scanner
	s.reset(b)
	s.enter('{')
	for n := 0; s.next('}', &n) && s.err == nil; {
		switch string(s.key()) {
		case "role", "content", "type", "seq", "tool_calls", "tool_call_id", "parts", "message",
			"parentUuid", "uuid", "sessionId", "payload":
			return true
		case "messages", "input", "model", "tools", "system", "contents", "traj",
			"samples", "history", "log", "eval", "trajectory":
			return false
		}
		s.skip()
	}
	return false
}

// finishFile ends the file's last conversations, and says so when nothing
// in it was checked: a file where no conversation was recognised is not one
// without problems.
func (v *validator) finishFile() {
	if v.stopped {
		return
	}
	switch v.kind {
	case linesAgentloop, linesMessages, linesCodex:
		if v.conv.v != nil && v.conv.n > 0 {
			v.conv.finish()
		}
	case linesClaudeCode:
		v.ccFinish()
	}
	// A conversation of an unknown shape (Gemini's contents) has had its
	// warning; objects of no known type are not one.
	if v.stats.Messages > 0 || v.stats.Errors > 0 || v.stats.Warnings > 0 && v.unknownType == "" {
		return
	}
	why := v.noConv
	switch {
	case why != "":
	case v.unknownType != "":
		why = fmt.Sprintf("no message found, only objects of types such as %q, which no API reads", v.unknownType)
	case v.stats.Conversations > 0:
		why = "no message found"
	default:
		why = "no conversation or message was recognised"
	}
	sev := Error
	if v.opts.AllowPending && (v.kind == linesAgentloop || v.noConv == "the file is empty") {
		// A run in progress, stopped before its first message: what
		// --allow-pending accepts, said so.
		sev, why = Warning, why+" (a run stopped before its first message?)"
	}
	v.fileFinding(0, sev, "no-conversation", "%s: nothing was checked", why)
}

// formatName says what a format is in a sentence.
func formatName(format string) string {
	switch format {
	case InputAgentloop:
		return "agentloop transcript"
	case InputMessages:
		return "JSONL of messages"
	case InputConversations:
		return "JSONL of conversations"
	case InputRequest:
		return "JSON document"
	case InputClaudeCode:
		return "Claude Code session"
	case InputCodex:
		return "Codex rollout"
	case InputInspect:
		return "Inspect AI log"
	case InputSWEAgent:
		return "SWE-agent trajectory"
	case InputVCR:
		return "cassette"
	case InputHAR:
		return "HAR file"
	}
	return format
}

// label names the file's format for the summary: the input format, and for
// formats that hold messages of any API, the shape of its conversations
// when they share one.
func (v *validator) label() string {
	f := v.format
	if f == "" {
		switch v.kind {
		case linesAgentloop:
			f = InputAgentloop
		case linesMessages:
			f = InputMessages
		case linesConversations:
			f = InputConversations
		case linesClaudeCode:
			f = InputClaudeCode
		case linesCodex:
			f = InputCodex
		default:
			return "unknown"
		}
	}
	switch f {
	case InputMessages, InputConversations, InputRequest:
	default:
		return f
	}
	for _, s := range []shape{shapeOpenAI, shapeAnthropic, shapeResponses} {
		if v.shapes == 1<<s {
			return shapeLabel(s) + "-" + f
		}
	}
	return f
}

func shapeLabel(s shape) string {
	switch s {
	case shapeOpenAI:
		return "openai"
	case shapeAnthropic:
		return "anthropic"
	case shapeResponses:
		return "responses"
	}
	return ""
}

// interrupted reports whether the caller's context is done. It is asked
// every few hundred lines or values.
func (v *validator) interrupted() bool {
	select {
	case <-v.done:
		return true
	default:
		return false
	}
}

// lines checks a JSONL file, one line at a time.
func (v *validator) lines(lr *LineReader) error {
	for count := 0; ; count++ {
		if count&255 == 0 && v.interrupted() {
			return v.ctx.Err()
		}
		text, n, complete, err := lr.Next()
		if err == io.EOF {
			v.finishFile()
			return nil
		}
		if err != nil {
			if _, ok := err.(*LineTooLongError); ok {
				v.tooLong(n, fmt.Sprintf("line %d", n))
				continue
			}
			if err := v.readError(err); err != nil {
				return err
			}
			return nil
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		v.sc.arena = v.sc.arena[:0]
		if v.kind == linesUnknown {
			v.kind = classifyLine(text)
			if v.kind == linesUnknown {
				v.notJSON(text, n, complete)
				continue
			}
		}
		switch v.kind {
		case linesAgentloop:
			v.record(text, n, complete)
		case linesMessages:
			v.messageLine(text, n, complete)
		case linesConversations:
			v.conversationLine(text, n, complete)
		case linesClaudeCode:
			v.ccLine(text, n, complete)
		case linesCodex:
			v.codexLine(text, n, complete)
		}
	}
}

// classifyLine picks the JSONL format from its first readable line.
func classifyLine(text []byte) lineKind {
	var s scanner
	s.reset(text)
	if s.peekKind() != kindObject {
		s.skip()
		s.end()
		if s.err != nil {
			return linesUnknown
		}
		return linesMessages
	}
	s.enter('{')
	var typ []byte
	record, conv, claude, payload, codexMeta, role, message, wrapped := false, false, false, false, 0, false, false, false
	for n := 0; s.next('}', &n); {
		k := s.key()
		switch string(k) {
		case "type":
			if s.peekKind() == kindString {
				typ = s.text()
				continue
			}
		case "seq", "reason", "provider":
			record = true
		case "message":
			message = s.peekKind() == kindObject
			record = message || record
		case "messages", "contents", "traj":
			conv = true
		case "input":
			conv = s.peekKind() == kindArray || conv
		case "parentUuid", "leafUuid", "sessionId", "isSidechain":
			claude = true
		case "payload":
			payload = s.peekKind() == kindObject
		case "role", "content":
			role = true
		case "request", "body":
			// A request body with what became of it (a Batch API
			// input line, a traffic record): see conversationLine.
			wrapped = s.peekKind() == kindObject || wrapped
		case "id", "timestamp", "instructions":
			// The first line of a rollout before Codex CLI 0.30:
			// {"id", "timestamp", "instructions", "git"}.
			codexMeta++
		}
		s.skip()
	}
	s.end()
	switch t := string(typ); {
	case s.err != nil:
		return linesUnknown
	case conv:
		return linesConversations
	case payload && (t == "session_meta" || t == "response_item" || t == "event_msg" || t == "turn_context" || t == "compacted"):
		return linesCodex
	case t == TypeHeader, (t == TypeMessage || t == TypeEnd) && record:
		return linesAgentloop
	case claude && t != "", t == "file-history-snapshot", t == "queue-operation",
		// A Claude Code line without its tree's keys (trimmed by hand or
		// by another tool): no other format wraps a message so.
		(t == "user" || t == "assistant") && message:
		return linesClaudeCode
	case codexMeta == 3 && t == "" && !role:
		return linesCodex
	case wrapped && t == "" && !role && !record:
		return linesConversations
	}
	return linesMessages
}

package check

import (
	"strings"
)

// Amazon Bedrock Converse (bedrock-runtime Converse and ConverseStream):
// messages of role user or assistant whose content is a list of content
// blocks, each a union keyed by its member and without a type:
// {"text": …}, {"toolUse": {"toolUseId", "name", "input"}}, {"toolResult":
// {"toolUseId", "content": [{"text"}|{"json"}|…], "status"}}, {"image"},
// {"document"}, {"reasoningContent"}… The pairing is the Anthropic one,
// which Bedrock enforces itself ("Expected toolResult blocks at
// messages.N.content for the following Ids: …"), so the Anthropic rules
// run on the blocks, with Bedrock's own severities where they differ
// (ShapeRules) and its words in the findings.

// bedrockMembers are the members of a content block besides toolUse and
// toolResult, as constants (a block keeps one without allocating).
var bedrockMembers = map[string]string{
	"image": "image", "document": "document", "video": "video", "reasoningContent": "reasoningContent",
	"cachePoint": "cachePoint", "guardContent": "guardContent", "citationsContent": "citationsContent",
	"searchResult": "searchResult",
}

// The Anthropic block types a Bedrock block is checked as.
var (
	typeToolUse          = []byte("tool_use")
	typeToolResult       = []byte("tool_result")
	typeServerToolUse    = []byte("server_tool_use")
	typeServerToolResult = []byte("server_tool_result")
	typeText             = []byte("text")
	typeUnknown          = []byte("unknown") // reported already: passed over
)

// bedrockWords says the Anthropic rules' findings in Bedrock's words. Only
// the format of a finding is rewritten, never what it quotes.
var bedrockWords = strings.NewReplacer(
	"no tool_result at the start of the user message that follows", "no toolResult in the user message that follows",
	"server_tool_use", "toolUse of a server tool",
	"tool_use_id", "toolUseId",
	"tool_result", "toolResult",
	"tool_use", "toolUse",
	"is_error true", `status "error"`,
	"the Messages API refuses it", "Bedrock refuses it",
	"text content blocks must be non-empty", "The text field in the ContentBlock object … is blank",
	"accepted by the Messages API, refused by some gateways", "accepted by some of Bedrock's models, refused by others",
)

// What the role rules say, which Bedrock enforces where the Messages API
// merges or lets pass.
const (
	anthropicRoleOrder    = "the API merges them into one turn"
	bedrockRoleOrder      = "Bedrock refuses it (\"A conversation must alternate between user and assistant roles.\")"
	anthropicFirstNotUser = "older API versions want a user message first"
	bedrockFirstNotUser   = "Bedrock refuses it (\"A conversation must start with a user message.\")"
)

func (c *conv) roleOrder() string {
	if c.shape == shapeBedrock {
		return bedrockRoleOrder
	}
	return anthropicRoleOrder
}

func (c *conv) firstNotUser() string {
	if c.shape == shapeBedrock {
		return bedrockFirstNotUser
	}
	return anthropicFirstNotUser
}

// asBedrock makes a finding held for the Anthropic shape, on a message
// that did not show its shape, one of the Bedrock shape: its severity, and
// what the role rules say.
func asBedrock(f *Finding) {
	if sev, ok := shapeSeverity(shapeBedrock, f.Code); ok {
		f.Severity = sev
	}
	switch f.Code {
	case "role-order":
		f.Message = strings.Replace(f.Message, anthropicRoleOrder, bedrockRoleOrder, 1)
	case "first-not-user":
		f.Message = strings.Replace(f.Message, anthropicFirstNotUser, bedrockFirstNotUser, 1)
	}
}

// readBedrockTool reads the object of a toolUse or toolResult member into b.
func (s *scanner) readBedrockTool(b *block) {
	use := b.bedrock == "toolUse"
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		switch string(s.Key()) {
		case "toolUseId":
			if use {
				b.hasID, b.id = true, s.StringOrSkip()
			} else {
				b.hasUseID, b.toolUseID = true, s.StringOrSkip()
			}
		case "name":
			b.hasName = true
			b.name = s.StringOrSkip()
		case "input":
			b.inputK = s.PeekKind()
			b.input = s.SkipRaw()
		case "status":
			if s.PeekKind() == KindString {
				b.isError = string(s.Text()) == "error"
				continue
			}
			s.Skip()
		case "type":
			// A toolUse of a client tool may carry "type": "tool_use", as
			// Converse's responses write it; a server tool's says so, and
			// its result names the tool ("nova_code_interpreter_result").
			t := string(s.StringOrSkip())
			if use {
				b.server = t == "server_tool_use"
			} else {
				b.server = t != "" && t != "tool_result"
			}
		case "content":
			b.content = s.PeekKind()
			if b.content != KindArray {
				s.Skip()
				continue
			}
			// Empty when it holds no block, or only text blocks of
			// blank text.
			b.emptyValue = true
			s.Enter('[')
			for cnt := 0; s.Next(']', &cnt); {
				if !s.blankBedrockText() {
					b.emptyValue = false
				}
			}
		default:
			s.Skip()
		}
	}
}

// blankBedrockText reads one block of a toolResult's content and reports
// whether it is {"text": …} with blank text.
func (s *scanner) blankBedrockText() bool {
	if s.PeekKind() != KindObject {
		s.Skip()
		return false
	}
	keys, blank := 0, false
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		keys++
		if string(s.Key()) == "text" && s.PeekKind() == KindString {
			raw, _ := s.Str()
			blank = IsBlank(raw)
			continue
		}
		s.Skip()
	}
	return keys == 1 && blank
}

// addBedrock checks a message of a Converse request: its blocks are
// named as the Anthropic rules know them, and those rules run on it.
func (c *conv) addBedrock(m *Msg) {
	switch string(m.role) {
	case "user", "assistant":
	case "system":
		c.report(m.line, m.index, "invalid-message", nil,
			"role system: Converse takes the system prompt in the top-level system field; a message's role is user or assistant")
		return
	}
	if m.content == KindString {
		c.report(m.line, m.index, "invalid-message", nil, "content is a string; Converse wants an array of content blocks")
		return
	}
	for i := range m.blocks {
		b := &m.blocks[i]
		if b.notObject || b.typ != nil {
			continue
		}
		switch {
		case b.bedrock == "toolUse" && b.server:
			b.typ = typeServerToolUse
		case b.bedrock == "toolUse":
			b.typ = typeToolUse
		case b.bedrock == "toolResult" && b.server:
			b.typ = typeServerToolResult
		case b.bedrock == "toolResult":
			b.typ = typeToolResult
		case b.bedrock != "":
			b.typ = []byte(b.bedrock)
		case b.hasText:
			b.typ = typeText
		default:
			c.report(m.line, m.index, "invalid-block", nil,
				"content[%d] has no member Converse takes (text, toolUse, toolResult, image, document, reasoningContent…)", i)
			b.typ = typeUnknown
		}
	}
	if m.hasRole && m.roleK == KindString {
		c.bedrockTools = c.bedrockTools || hasToolBlock(m)
	}
	if string(m.role) == "user" {
		c.textBesideResults(m)
	}
	c.addAnthropic(m)
}

// bedrockCallID applies the toolUseId rule: 1 to 64 characters. The
// pattern the API reference gives, [a-zA-Z0-9_-]+, is not what the API
// enforces: it answered 200 for "functions.get_temperature:0" (Kimi K2's
// ids; pydantic/pydantic-ai, tests/models/cassettes/test_bedrock/
// test_bedrock_moonshotai_tool_call.yaml), so only characters outside
// [a-zA-Z0-9_.:-] are reported.
func (c *conv) bedrockCallID(m *Msg, i int, id []byte) {
	bad := len(id) > 64
	for _, ch := range id {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-' || ch == '.' || ch == ':') {
			bad = true
		}
	}
	if bad {
		c.report(m.line, m.index, "invalid-call-id", []string{string(id)},
			"content[%d]: toolUseId %q is not 1 to 64 of [a-zA-Z0-9_.:-]", i, id)
	}
}

// textBesideResults warns of text after the toolResult blocks of a user
// message: Bedrock refuses it for some models ("Conversation blocks and
// tool result blocks cannot be provided in the same turn": Claude 3 Opus,
// Llama 4 Maverick) and answered 200 for others (Llama 3, Writer, Nova,
// recorded by pydantic-ai). Text before them is result-not-first.
func (c *conv) textBesideResults(m *Msg) {
	results := false
	for i := range m.blocks {
		b := &m.blocks[i]
		switch {
		case b.bedrock == "toolResult" && !b.server:
			results = true
		case results && b.typ != nil && string(b.typ) == "text" && !b.blankText:
			c.report(m.line, m.index, "text-beside-results", nil,
				"content[%d]: text after the toolResult blocks of the message: refused by some of Bedrock's models (\"Conversation blocks and tool result blocks cannot be provided in the same turn.\"), answered by others", i)
			return
		}
	}
}

// hasToolBlock reports whether a message holds a toolUse or toolResult
// block.
func hasToolBlock(m *Msg) bool {
	for i := range m.blocks {
		if b := m.blocks[i].bedrock; b == "toolUse" || b == "toolResult" {
			return true
		}
	}
	return false
}

// bedrockBody applies what only a whole Converse request says, once its
// keys are read: toolUse and toolResult blocks need a toolConfig.
func (c *conv) bedrockBody(d *Doc) {
	if c.shape != shapeBedrock || c.kind != ConvRequest || d.toolConfig || !c.bedrockTools {
		return
	}
	c.report(c.start, -1, "missing-tool-config", nil,
		"the request holds toolUse or toolResult blocks but no toolConfig; Bedrock refuses it (\"The toolConfig field must be defined when using toolUse and toolResult content blocks.\")")
}

package transcript

import "fmt"

// Inspect AI eval logs (.json; logs/<time>_<task>_<id>.json): a document
// whose "samples" each hold the conversation of one sample under
// "messages", in Inspect's own shape (inspect_ai/model/_chat_message.py):
// roles system, user, assistant and tool; an assistant's tool_calls are
// {"id", "function": name, "arguments": {object}}; a tool message answers
// one by "tool_call_id". Inspect's providers turn these into each API's
// messages, pairing the same way, so they are checked with the Chat
// Completions rules, the arguments being objects already.

// inspectSample checks element i of "samples", read from the stream a key
// at a time: a sample's events can be far larger than its messages.
func (v *validator) inspectSample(st *stream, line, i int) error {
	if st.peek() != '{' {
		return v.skipValue(st)
	}
	st.consume()
	return v.walkObject(st, func(key string, k byte, line int) (bool, error) {
		if key != "messages" || k != kindArray {
			return false, nil
		}
		st.consume()
		v.startConv(line, kindLog, fmt.Sprintf("samples[%d].messages", i))
		v.conv.flat = true
		if v.opts.Shape == "" {
			v.conv.shape = shapeOpenAI
		}
		if err := v.streamArray(st, v.conv.array, v.docMessage); err != nil {
			return true, err
		}
		v.conv.finish()
		return true, nil
	})
}

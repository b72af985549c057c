package answerschema

// Prompt is the schema said in words, for a model that is not sent it in
// a structured output field (--schema-mode prompt, a server without
// structured output): appended to the system prompt of every request, it
// asks for the value alone, as the check here wants it.
func (s *Schema) Prompt() string {
	return "When you give your final answer (once you need no more tools), it must be one JSON value " +
		"matching the JSON Schema below, and nothing else: no text before or after it, no code fence.\n\n" +
		"JSON Schema of the final answer:\n" + string(s.raw)
}

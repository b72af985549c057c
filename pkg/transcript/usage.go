package transcript

import "github.com/agentloop/agentloop/pkg/wire"

// RequestTokens reads a request's usage the same way whatever the provider:
// input is every input token of the request, cached those of them read from
// the prompt cache. The APIs count differently: Chat Completions'
// prompt_tokens and Responses' input_tokens hold the cached tokens, while
// Anthropic's input_tokens leaves out the tokens read from and written to
// the cache, which it counts apart.
func RequestTokens(provider string, u Usage) (input, cached int64) {
	if wire.Shape(provider).CacheApart() {
		return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, u.CacheReadInputTokens
	}
	return u.InputTokens, u.CacheReadInputTokens
}

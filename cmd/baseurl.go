package cmd

import (
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// checkBaseURL refuses an unusable base URL, naming where it came from.
func checkBaseURL(raw, source string) error {
	if p := config.BaseURLProblem(raw); p != "" {
		return flagErrorf("%s %q: %s", source, transcript.RedactURL(raw), p)
	}
	return nil
}

// baseURLSource names where a base URL came from: the flag, else the
// provider's variable.
func baseURLSource(flag string, provider string) string {
	if flag != "" {
		return "--base-url"
	}
	return config.ProviderBaseURLEnv(provider)
}

package cmd

import (
	"fmt"

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

// baseURLSetting names the setting a resolved base URL came from, as an
// error message tells the user to check it: "" for the default.
func baseURLSetting(src config.Source) string {
	switch src.Kind {
	case config.SourceFlag:
		return "--base-url"
	case config.SourceEnv:
		return src.Name
	case config.SourceFile:
		return fmt.Sprintf("base_url in %s:%d", src.File, src.Line)
	}
	return ""
}

// baseURLSource names where a base URL came from: the flag, else the
// provider's variable.
func baseURLSource(flag string, provider string) string {
	if flag != "" {
		return "--base-url"
	}
	return config.ProviderBaseURLEnv(provider)
}

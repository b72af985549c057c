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
func baseURLSetting(src config.Source) string { return settingName(src, "base_url") }

// settingName names the setting a resolved value of the configuration's
// key came from, as an error message tells the user to check it: the flag,
// the variable, or the key at its line of the file; "" for the default.
func settingName(src config.Source, key string) string {
	switch src.Kind {
	case config.SourceFlag, config.SourceEnv:
		return src.Name
	case config.SourceFile:
		return fmt.Sprintf("%s in %s:%d", key, src.File, src.Line)
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

package cmd

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// checkBaseURL refuses an unusable base URL, naming where it came from in
// the form the configuration's errors use: a flag with the usage pointer,
// a variable as NAME=VALUE (as AGENTLOOP_BASE_URL's), or another source
// (a line of the file, a transcript's header) without the pointer, which
// --help would not set right.
func checkBaseURL(raw, source string) error {
	p := config.BaseURLProblem(raw)
	if p == "" {
		return nil
	}
	shown := transcript.RedactURL(raw)
	switch {
	case strings.HasPrefix(source, "--"):
		return flagErrorf("%s %q: %s", source, shown, p)
	case isEnvName(source):
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s=%s: %s", source, shown, p)}
	}
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s %q: %s", source, shown, p)}
}

// isEnvName reports whether s is the name of an environment variable
// (OPENAI_BASE_URL) rather than a flag or a description.
func isEnvName(s string) bool {
	for _, r := range s {
		if (r < 'A' || r > 'Z') && r != '_' && (r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
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

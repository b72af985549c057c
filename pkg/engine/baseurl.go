package engine

import (
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// CheckBaseURL refuses an unusable base URL, naming where it came from in
// the form the configuration's errors use: a flag with the usage pointer,
// a variable as NAME=VALUE (as AGENTLOOP_BASE_URL's), or another source
// (a line of the file, a transcript's header) without the pointer, which
// --help would not set right.
func CheckBaseURL(raw, source string) error {
	p := config.BaseURLProblem(raw)
	if p == "" {
		return nil
	}
	shown := transcript.RedactURL(raw)
	switch {
	case strings.HasPrefix(source, "--"):
		return flagf("%s %q: %s", source, shown, p)
	case isEnvName(source):
		return usagef("%s=%s: %s", source, shown, p)
	}
	return usagef("%s %q: %s", source, shown, p)
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

package engine

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/shell"
	"github.com/agentloop/agentloop/internal/toolset"
)

// ToolsRead says which tools folders a run that goes on with a recording
// read, for the error of the tools it could not load.
type ToolsRead struct {
	// Dirs are the folders read, nil for the default ones.
	Dirs []string
	// Setting names the setting that gave Dirs ("--tools-dir", a
	// variable, a line of the file); "" when they are the recording's or
	// agentloop's choice.
	Setting string
	// Recorded are the folders the recording names.
	Recorded []string
	// Untrusted says why a folder that is here is left out for want of
	// trust, and the command that trusts it; "" when it is trusted.
	Untrusted func(dir string) (why, trust string)
}

// RecordedToolsError is the usage error of a run that would go on with a
// recording without some of the tools it offered (absent): it names them,
// says why each is not here (a recorded folder left out, an MCP server not
// configured) and the flag that brings it back, or --deny to go on
// without it.
func RecordedToolsError(absent []toolset.Absent, r ToolsRead) error {
	var names, denies, why, fixes []string
	scripts, undeclared := false, false
	for _, a := range absent {
		names = append(names, a.Name)
		denies = append(denies, "--deny "+shell.Quote(a.Name))
		switch {
		case a.Server == "":
			scripts = true
		case !a.Declared:
			undeclared = true
			why = append(why, fmt.Sprintf("mcp server %s, which offered %s, is not configured here", a.Server, a.Name))
			fix := "--mcp-config with a {\"mcpServers\": …} file that declares " + a.Server
			if !slices.Contains(fixes, fix) {
				fixes = append(fixes, fix)
			}
		case !a.Started:
			why = append(why, fmt.Sprintf("mcp server %s, which offered %s, did not start", a.Server, a.Name))
		default:
			why = append(why, fmt.Sprintf("mcp server %s does not offer %s now", a.Server, a.Name))
		}
	}
	// A recorded folder left out takes its script tools with it, and the
	// servers its files declare (one that is not here is the rule for a
	// project without tools.d, not a reason a server is missing).
	var left []leftOut
	if scripts || undeclared {
		left = foldersLeftOut(r)
	}
	for _, l := range left {
		if scripts || l.here {
			why = append(why, l.why)
			if !slices.Contains(fixes, l.fix) {
				fixes = append(fixes, l.fix)
			}
		}
	}
	if scripts && len(left) == 0 {
		why = append(why, "none of the tools folders read defines "+english.Plural(len(names), "it", "them")+" now")
		fixes = append(fixes, notReadFolders(r))
	}
	fixes = append(fixes, strings.Join(denies, " ")+" to go on without "+english.Plural(len(names), "it", "them"))
	last := len(fixes) - 1
	if last > 0 {
		fixes = []string{strings.Join(fixes[:last], ", ") + ", or " + fixes[last]}
	}
	msg := fmt.Sprintf("the conversation's tool%s %s cannot be loaded: %s; pass %s",
		english.Plural(len(names), "", "s"), strings.Join(names, ", "), strings.Join(why, "; "), fixes[0])
	return &SetupError{Kind: Usage, Err: errors.New(msg)}
}

// leftOut is a folder a recording names that was left out: why, the flag
// that brings it back, and whether it is here (not trusted) or not.
type leftOut struct {
	why, fix string
	here     bool
}

// foldersLeftOut are the folders a recording names that were left out
// when the folders read are the recording's (no setting named others):
// those not here, and those not trusted as they are now.
func foldersLeftOut(r ToolsRead) []leftOut {
	read := HeaderToolsDirs(r.Dirs)
	if r.Setting != "" || !slices.Equal(read, HeaderToolsDirs(r.Recorded)) {
		return nil
	}
	// Folders a recording names are used only once trusted, and are
	// looked for where the run goes on.
	var out []leftOut
	for _, d := range read {
		if _, err := os.Stat(d); err != nil {
			out = append(out, leftOut{
				why: fmt.Sprintf("the tools folder %s the run recorded is not here (a folder is recorded as the run was given it)", d),
				fix: "--tools-dir with the folder where it is now (or run from the folder the run started in)",
			})
			continue
		}
		if r.Untrusted == nil {
			continue
		}
		if reason, trust := r.Untrusted(d); reason != "" {
			out = append(out, leftOut{
				why:  fmt.Sprintf("the tools folder %s the run recorded is left out: %s", d, reason),
				fix:  fmt.Sprintf("--tools-dir %s to use it (or review it, then run: %s)", shell.Quote(d), trust),
				here: true,
			})
		}
	}
	return out
}

// notReadFolders is the flag that reads the folders a recording names
// that were not read (a setting's folders, or a batch's), or a pointer to
// one when they all were.
func notReadFolders(r ToolsRead) string {
	read := HeaderToolsDirs(r.Dirs)
	var flags []string
	for _, d := range r.Recorded {
		if !slices.Contains(read, d) {
			flags = append(flags, "--tools-dir "+shell.Quote(d))
		}
	}
	if len(flags) == 0 {
		return "--tools-dir DIR of a folder that does"
	}
	return strings.Join(flags, " ") + " to read the " + english.Plural(len(flags), "folder", "folders") + " the run recorded"
}

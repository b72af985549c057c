package cmd

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/shell"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// recordedTools are the tools folders for a recorded conversation:
// --tools-dir or AGENTLOOP_TOOLS_DIRS, else the folders the run recorded,
// else the configured ones (flag > variable > transcript > file, as for the
// recorded model).
// Recorded folders are agentloop's choice, not the user's: a transcript may
// come from anywhere, so they are used as ./tools.d is: those that exist
// and are trusted (a tool gone is a "missing tool" row of a replay; a run
// that goes on without it stops first, see narrowTools).
//
// A run of the default folders records them as tools.d: the user's own
// folder goes with it again. Recorded folders that are the configuration
// file's tools_dirs are the user's choice, as the file's are.
func (o *liveOptions) recordedTools(conv *transcript.Conversation) toolsSource {
	if o.toolsDirsSet || conv.Header == nil || len(conv.Header.ToolsDirs) == 0 {
		return toolsSource{o.ToolsDirs, o.toolsSetting}
	}
	dirs := conv.Header.ToolsDirs
	switch {
	case o.toolsSetting != "" && slices.Equal(dirs, o.ToolsDirs):
		return toolsSource{o.ToolsDirs, o.toolsSetting}
	case slices.Equal(dirs, toolsDirsForHeader(nil)):
		return toolsSource{}
	}
	return toolsSource{dirs: dirs}
}

// toolsChosen reports whether the tools folders were named on the command
// line or in AGENTLOOP_TOOLS_DIRS: the user's choice for this command, which
// beats the folders a transcript recorded, as a flag or a variable beats a
// transcript's model. The file's tools_dirs, set for every project, does not.
func toolsChosen(cfg *config.Config) bool {
	k := cfg.Source("tools_dirs").Kind
	return k == config.SourceFlag || k == config.SourceEnv
}

// warnToolsDirsGone warns when the tools folders a recording names (as
// given to the run, so relative to where it started) are not there: every
// call of theirs would then be a "missing tool", for a reason the rows do
// not say. called are the tools the recording calls (calledTools), or,
// for a follow-up, those it offered.
func warnToolsDirsGone(ios *IOStreams, o *liveOptions, conv *transcript.Conversation, called []string) {
	if o.toolsDirsSet || o.Quiet || conv.Header == nil || len(called) == 0 {
		return
	}
	for _, dir := range conv.Header.ToolsDirs {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(ios.ErrOut, "agentloop: warning: the recording's tools folder %s is not here (a folder is recorded as the run was given it): run from the folder the run started in, or pass --tools-dir\n", safeText(dir))
		}
	}
}

// calledTools are the names of the tools a conversation's turns call.
func calledTools(d agent.Dialect, conv *transcript.Conversation) []string {
	var names []string
	for _, rec := range conv.Messages {
		if d.Role(rec.Message) != "assistant" {
			continue
		}
		if t, err := d.ParseAssistant(rec.Message); err == nil {
			for _, c := range t.Calls {
				if !slices.Contains(names, c.Name) {
					names = append(names, c.Name)
				}
			}
		}
	}
	return names
}

// recordedToolsError is the usage error (exit 2) of a run that would go on
// with a recording without some of the tools it offered: it names them,
// says why each is not here (a recorded folder left out, an MCP server not
// configured) and the flag that brings it back, or --deny to go on
// without it.
func recordedToolsError(ios *IOStreams, src toolsSource, recordedDirs []string, absent []toolset.Absent) error {
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
		left = foldersLeftOut(ios, src, recordedDirs)
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
		why = append(why, "none of the tools folders read defines "+plural(len(names), "it", "them")+" now")
		fixes = append(fixes, notReadFolders(src, recordedDirs))
	}
	fixes = append(fixes, strings.Join(denies, " ")+" to go on without "+plural(len(names), "it", "them"))
	last := len(fixes) - 1
	if last > 0 {
		fixes = []string{strings.Join(fixes[:last], ", ") + ", or " + fixes[last]}
	}
	msg := fmt.Sprintf("the conversation's tool%s %s cannot be loaded: %s; pass %s",
		plural(len(names), "", "s"), strings.Join(names, ", "), strings.Join(why, "; "), fixes[0])
	return &ExitError{Code: ExitUsage, Err: errors.New(msg)}
}

// leftOut is a folder a recording names that was left out: why, the flag
// that brings it back, and whether it is here (not trusted) or not.
type leftOut struct {
	why, fix string
	here     bool
}

// foldersLeftOut are the folders a recording names that were left out
// when src is the recording's (no setting named others): those not here,
// and those not trusted as they are now.
func foldersLeftOut(ios *IOStreams, src toolsSource, recordedDirs []string) []leftOut {
	read := readDirs(src)
	if src.setting != "" || !slices.Equal(read, toolsDirsForHeader(recordedDirs)) {
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
		if reason, err := untrustedReason(ios, d); err == nil && reason != "" {
			out = append(out, leftOut{
				why:  fmt.Sprintf("the tools folder %s the run recorded is left out: %s", d, reason),
				fix:  fmt.Sprintf("--tools-dir %s to use it (or review it, then run: %s)", shell.Quote(d), trustCommand(d)),
				here: true,
			})
		}
	}
	return out
}

// notReadFolders is the flag that reads the folders a recording names
// that src does not (a setting's folders, or a batch's), or a pointer to
// one when it reads them all.
func notReadFolders(src toolsSource, recordedDirs []string) string {
	read := readDirs(src)
	var flags []string
	for _, d := range recordedDirs {
		if !slices.Contains(read, d) {
			flags = append(flags, "--tools-dir "+shell.Quote(d))
		}
	}
	if len(flags) == 0 {
		return "--tools-dir DIR of a folder that does"
	}
	return strings.Join(flags, " ") + " to read the " + plural(len(flags), "folder", "folders") + " the run recorded"
}

// readDirs are the folders src names, tools.d for the default ones as a
// header records them.
func readDirs(src toolsSource) []string {
	if src.dirs == nil {
		return toolsDirsForHeader(nil)
	}
	return src.dirs
}

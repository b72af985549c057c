package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/iostreams"
)

// commands walks the tree the user sees: every command that is not hidden.
func commands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if !c.Hidden && c.Name() != "help" {
			out = append(out, commands(c)...)
		}
	}
	return out
}

// Every command's --help shows examples.
func TestEveryCommandHasExamples(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	for _, c := range commands(NewRootCmd(ios)) {
		if c.Example == "" {
			t.Errorf("%s has no Example", c.CommandPath())
		}
		if c.Short == "" {
			t.Errorf("%s has no Short", c.CommandPath())
		}
	}
}

// Every example parses: the command exists, its flags exist, the number of
// arguments is right. An example that would fail with a usage error is
// worse than none.
func TestExamplesParse(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	for _, c := range commands(NewRootCmd(ios)) {
		for _, line := range strings.Split(c.Example, "\n") {
			for _, args := range exampleCommands(line) {
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					ios, _, _, _ := iostreams.Test()
					root := NewRootCmd(ios)
					root.InitDefaultVersionFlag()
					cmd, rest, err := root.Find(args)
					cmd.InitDefaultHelpFlag()
					if err != nil {
						t.Fatalf("%s: %v", c.CommandPath(), err)
					}
					if err := cmd.ParseFlags(rest); err != nil {
						t.Fatalf("%s: %v", c.CommandPath(), err)
					}
					if cmd.Args != nil {
						if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
							t.Fatalf("%s: %v", c.CommandPath(), err)
						}
					}
				})
			}
		}
	}
}

// exampleCommands splits an example line into the agentloop command lines
// it holds (a pipeline may hold two, a $(...) another), without the
// agentloop word.
func exampleCommands(line string) [][]string {
	var out [][]string
	var cur []string
	flush := func() {
		for len(cur) > 0 && strings.Contains(cur[0], "=") { // VAR=value agentloop ...
			cur = cur[1:]
		}
		if len(cur) > 0 && cur[0] == "agentloop" {
			out = append(out, cur[1:])
		}
		cur = nil
	}
	var word strings.Builder
	inWord := false
	var quote rune
	endWord := func() {
		if inWord {
			cur = append(cur, word.String())
		}
		word.Reset()
		inWord = false
	}
	// A command substitution is a command line of its own, and one
	// argument of the line around it; the innermost go first.
	for {
		open := max(strings.LastIndex(line, "$("), strings.LastIndex(line, "<("))
		if open < 0 {
			break
		}
		end := strings.IndexByte(line[open:], ')')
		if end < 0 {
			break
		}
		out = append(out, exampleCommands(line[open+2:open+end])...)
		line = line[:open] + "SUBSTITUTED" + line[open+end+1:]
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '#' && !inWord:
			endWord()
			flush()
			return out
		case r == ' ' || r == '\t':
			endWord()
		case strings.ContainsRune("|;&<>)", r):
			endWord()
			flush()
			if r == '<' || r == '>' { // the redirection's target is no argument
				for i+1 < len(rs) && rs[i+1] == ' ' {
					i++
				}
				for i+1 < len(rs) && rs[i+1] != ' ' {
					i++
				}
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	endWord()
	flush()
	return out
}

func TestExampleCommands(t *testing.T) {
	got := exampleCommands(`  git diff | agentloop run "Review this change" -o review.jsonl < x # comment`)
	if len(got) != 1 || strings.Join(got[0], "|") != "run|Review this change|-o|review.jsonl" {
		t.Errorf("%q", got)
	}
	got = exampleCommands(`  $EDITOR "$(agentloop config path)"`)
	if len(got) != 1 || strings.Join(got[0], "|") != "config|path" {
		t.Errorf("%q", got)
	}
	got = exampleCommands(`  agentloop validate run.jsonl && agentloop replay run.jsonl`)
	if len(got) != 2 {
		t.Errorf("%q", got)
	}
	got = exampleCommands(`  AGENTLOOP_MAX_STEPS=20 agentloop config show; source <(agentloop completion bash)`)
	if len(got) != 2 || strings.Join(got[0], "|") != "completion|bash" {
		t.Errorf("%q", got)
	}
	// The substitution is an argument of the command around it.
	got = exampleCommands(`  agentloop validate "$(agentloop log path last)"`)
	if len(got) != 2 || strings.Join(got[0], "|") != "log|path|last" || strings.Join(got[1], "|") != "validate|SUBSTITUTED" {
		t.Errorf("%q", got)
	}
}

// --help wraps flag descriptions to the terminal's width.
func TestHelpWraps(t *testing.T) {
	for _, width := range []int{60, 100} {
		ios, _, out, _ := iostreams.Test()
		ios.SetWidth(width)
		root := NewRootCmd(ios)
		root.SetArgs([]string{"run", "--help"})
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		inFlags := false
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasSuffix(line, "Flags:") {
				inFlags = true
				continue
			}
			if inFlags && len([]rune(line)) > width {
				t.Errorf("width %d: %d columns: %q", width, len([]rune(line)), line)
			}
		}
		if !strings.Contains(out.String(), "Examples:") {
			t.Errorf("no examples in run --help")
		}
	}
}

// --help fits every command's description to the terminal's width too:
// on an 80-column terminal and on a narrow one, no line of it runs over
// (bar a word longer than the width, and indented tables and commands).
func TestHelpDescriptionWraps(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		paths = append(paths, strings.Fields(strings.TrimPrefix(c.CommandPath(), "agentloop")))
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	ios, _, _, _ := iostreams.Test()
	walk(NewRootCmd(ios))
	for _, width := range []int{40, 60, 80} {
		for _, path := range paths {
			ios, _, out, _ := iostreams.Test()
			ios.SetWidth(width)
			root := NewRootCmd(ios)
			root.SetArgs(append(path, "--help"))
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			desc, _, _ := strings.Cut(out.String(), "\nUsage:")
			for _, line := range strings.Split(desc, "\n") {
				if len([]rune(line)) <= width || strings.HasPrefix(line, " ") || !strings.Contains(line, " ") {
					continue
				}
				t.Errorf("width %d: agentloop %s --help: %d columns: %q", width, strings.Join(path, " "), len([]rune(line)), line)
			}
		}
	}
}

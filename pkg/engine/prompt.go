package engine

import "strings"

// WithInput is a prompt followed by the text given with it on stdin (a
// run's, a batch item's), in a Markdown code fence longer than any run of
// backticks in the text.
func WithInput(prompt, text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return prompt + "\n\n" + f + "\n" + text + "\n" + f
}

package engine

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

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

// AddStdin is the prompt of the arguments with the text read on stdin:
// the text alone when there are no arguments, after them (WithInput) when
// there are, the prompt alone when stdin holds only blanks. Data that is
// not text (a NUL byte, invalid UTF-8) is an error that says so.
func AddStdin(prompt string, data []byte) (string, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return "", fmt.Errorf("stdin is not text: NUL byte at offset %d", i)
	}
	if !utf8.Valid(data) {
		return "", errors.New("stdin is not text: it is not valid UTF-8")
	}
	text := strings.TrimSpace(string(data))
	switch {
	case text == "":
		return prompt, nil
	case prompt == "":
		return text, nil
	}
	return WithInput(prompt, text), nil
}

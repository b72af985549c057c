package benchgen

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

// WriteClaudeCodeFrom writes a Claude Code log of about size bytes made of
// real sessions: the files given, one after another, again and again,
// each copy's ids made its own (the uuids, tool_use ids, message ids and
// request ids of copy k differ from every other copy's), so that every
// copy is checked as the conversations it holds. Real sessions' text is
// what the checker meets in the field: code and English with few bytes
// above 0x7f, where Write's generated text has one every 8 bytes.
func WriteClaudeCodeFrom(w io.Writer, files [][]byte, size int64) error {
	if len(files) == 0 {
		return fmt.Errorf("no session files")
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var written int64
	for k := 1; written < size; k++ {
		for _, f := range files {
			b := copyIDs(f, k)
			n, err := bw.Write(b)
			written += int64(n)
			if err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// ids are the identifiers a Claude Code log links its lines by: uuids
// (lines, sessions, tool results), and the API's tool_use, message and
// request ids.
var ids = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b(?:toolu|msg|req|srvtoolu)_[0-9A-Za-z]+`)

// copyIDs is a session with every id made copy k's: a uuid's last group
// XORed with k (one to one, so links stay links), an API id suffixed.
func copyIDs(data []byte, k int) []byte {
	return ids.ReplaceAllFunc(data, func(id []byte) []byte {
		if len(id) == 36 && id[8] == '-' {
			last, _ := strconv.ParseUint(string(id[24:]), 16, 64)
			out := append([]byte(nil), id[:24]...)
			return fmt.Appendf(out, "%012x", last^uint64(k))
		}
		return fmt.Appendf(append([]byte(nil), id...), "x%x", k)
	})
}

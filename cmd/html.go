package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/htmlview"
)

// writeHTMLReport draws the transcript file as a web page into out ("-"
// for stdout). Like --show it reads a transcript that fails validation.
func writeHTMLReport(ios *IOStreams, file, out string) error {
	convs, err := loadConversations(ios, file, drawInvalid)
	if err != nil {
		return err
	}
	if len(convs) != 1 {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s holds %d conversations; --html draws one (--show reads them all)", file, len(convs))}
	}
	conv := convs[0]
	render := func(w io.Writer) error {
		// The template writes a page in thousands of small pieces: one
		// system call each cost as much as drawing it.
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := htmlview.Render(bw, conv, htmlview.Options{Name: file, Dialect: agent.DialectFor(conv.Shape), Safe: safeText}); err != nil {
			return err
		}
		return bw.Flush()
	}
	if out == "-" {
		return render(ios.Out)
	}
	if file != "-" && sameFile(out, file) {
		return flagErrorf("--html %s would overwrite the transcript being read", out)
	}
	if dir := filepath.Dir(out); dir != "." {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--html %s: folder %s: no such file or directory (--html makes no folder)", out, dir)}
		}
	}
	if fi, err := os.Stat(out); err == nil {
		switch {
		case fi.IsDir():
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--html %s: is a folder; name a file for the page (--html %s)", out, filepath.Join(out, "run.html"))}
		case fi.Mode().IsRegular() && fi.Size() > 0 && !isPage(out):
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--html %s: the file exists and is not a web page: it is left as it is (remove it, or name another file for the page)", out)}
		}
	}
	// A page holds the whole conversation: as private as the transcript,
	// and never seen half written by a browser that has it open.
	return replaceFile(out, render)
}

// isPage reports whether the file starts as a web page does: one --html
// wrote before, which it may replace.
func isPage(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	b = bytes.TrimLeft(bytes.TrimPrefix(b[:n], []byte("\xef\xbb\xbf")), " \t\r\n")
	head := bytes.ToLower(b)
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

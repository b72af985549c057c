package cmd

import (
	"bytes"
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
		return htmlview.Render(w, conv, htmlview.Options{Name: file, Dialect: agent.DialectFor(conv.Shape), Safe: safeText})
	}
	if out == "-" {
		return render(ios.Out)
	}
	if file != "-" && sameFile(out, file) {
		return flagErrorf("--html %s would overwrite the transcript being read", out)
	}
	if fi, err := os.Stat(out); err == nil {
		switch {
		case fi.IsDir():
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--html %s: is a folder; name a file for the page (--html %s)", out, filepath.Join(out, "run.html"))}
		case !fi.Mode().IsRegular():
			// A device or a pipe is written to, never renamed over.
			f, err := os.OpenFile(out, os.O_WRONLY, 0)
			if err != nil {
				return fmt.Errorf("write %s: %w", out, err)
			}
			if err := render(f); err != nil {
				f.Close()
				return fmt.Errorf("write %s: %w", out, err)
			}
			return f.Close()
		case fi.Size() > 0 && !isPage(out):
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--html %s: the file exists and is not a web page: it is left as it is (remove it, or name another file for the page)", out)}
		}
	}
	// Written beside and renamed, so that a page open in a browser is
	// never seen half written, and a failure leaves no partial page.
	tmp, err := os.CreateTemp(filepath.Dir(out), ".agentloop-*.html")
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	defer os.Remove(tmp.Name())
	if err := render(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	// A page holds the whole conversation: as private as the transcript.
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
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

package cmd

import (
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
	convs, err := loadConversations(ios, file, true)
	if err != nil {
		return err
	}
	if len(convs) != 1 {
		return fmt.Errorf("%s holds %d conversations; --html draws one (--show reads them all)", file, len(convs))
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

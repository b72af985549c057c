package textview

import (
	"errors"
	"io"
	"os"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/htmlview"
	"github.com/agentloop/agentloop/pkg/longtext"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// requestNotes say what --show tells of a turn's request: its size, and
// whether it asked for an answer without tools.
func requestNotes(recs []transcript.Message) []string {
	var notes []string
	for _, rec := range recs {
		if rec.RequestBytes > 0 {
			notes = append(notes, bytesize.Decimal(rec.RequestBytes)+" sent")
		}
		if rec.ToolChoice == "none" {
			notes = append(notes, "asked to answer without tools")
		}
	}
	return notes
}

// clearedLine says which results a turn's request was the first to carry
// cleared, for --show.
func clearedLine(recs []transcript.Message) string {
	list := htmlview.ClearedList(recs, func(s string) string { return termtext.Display(s, 200) })
	if list == "" {
		return ""
	}
	return "✂ cleared from this request on: " + list
}

// errNoClearing ends the reading of a file that holds no cleared results.
var errNoClearing = errors.New("no clearing")

// clearedInFile reads ahead, in a transcript file whose header says it
// may hold cleared results (a clearing policy, or a parent whose records
// it starts with), where each was first sent cleared, so that --show can
// mark a result when it prints it, before the request that cleared it. It
// keeps only those entries, and puts the file back at its start. A pipe is
// not read ahead: its results are marked at the step that cleared them
// only.
func clearedInFile(f *os.File) (htmlview.Clearings, error) {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	out := htmlview.Clearings{}
	// A bad line ends this reading early; the reading proper says what
	// is wrong, and where.
	// Its long texts are left in the file, as they are when it is shown.
	_, _ = transcript.ReadEach(longtext.NewFilter(f, f, LongText), func(pt transcript.Part) error {
		switch {
		case pt.Format != "agentloop":
			return errNoClearing
		case pt.Header != nil:
			if pt.Header.Context == nil && pt.Header.Parent == "" {
				return errNoClearing
			}
		case pt.Message != nil:
			out.Add(pt.Message)
		}
		return nil
	})
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return out, nil
}

package check

import "github.com/agentloop/agentloop/pkg/transcript/internal/jsonscan"

// Scanner is the JSON scanner with what the checker reads with it: messages
// (ReadMsg) and the like.
type Scanner struct{ jsonscan.Scanner }

// scanner is the name the checker's own code gives it.
type scanner = Scanner

// Kinds of JSON values, from their first byte (see jsonscan).
const (
	KindAbsent  = jsonscan.Absent
	KindNull    = jsonscan.Null
	KindBool    = jsonscan.Bool
	KindNumber  = jsonscan.Number
	KindString  = jsonscan.String
	KindArray   = jsonscan.Array
	KindObject  = jsonscan.Object
	KindInvalid = jsonscan.Invalid
)

// KindOf is the kind of the value that starts with c.
func KindOf(c byte) byte { return jsonscan.KindOf(c) }

// KindName names a kind in a sentence: "an object".
func KindName(k byte) string { return jsonscan.KindName(k) }

// IsBlank reports whether raw string contents hold only whitespace.
func IsBlank(raw []byte) bool { return jsonscan.IsBlank(raw) }

// BadTextMessage says what is wrong with text that is not UTF-8.
func BadTextMessage(at []byte, sur bool) string { return jsonscan.BadTextMessage(at, sur) }

// failed reports whether the scanner met an error.
func (s *Scanner) failed() bool { return s.Err() != nil }

// StringOrSkip returns the string at the cursor, or skips a value of any
// other kind and returns nil.
func (s *Scanner) StringOrSkip() []byte {
	if s.PeekKind() == KindString {
		return s.Text()
	}
	s.Skip()
	return nil
}

package agent

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/jsonesc"
)

// marshalNoEscape is json.Marshal without HTML escaping, so text with < > &
// reads in a transcript as the model wrote it.
func marshalNoEscape(v any) ([]byte, error) { return jsonesc.Marshal(v) }

// jsonString decodes a JSON string literal as json.Unmarshal does (an
// invalid byte or a lone surrogate becomes U+FFFD) but into a single
// allocation: json.Unmarshal makes two, the unquoted bytes and the
// string, and an answer can be hundreds of megabytes. ok is false when b
// is not a string literal.
func jsonString(b []byte) (s string, ok bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	b = b[1 : len(b)-1]
	var out strings.Builder
	out.Grow(len(b))
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\\')
		if i < 0 {
			i = len(b)
		}
		writeValid(&out, b[:i])
		b = b[i:]
		if len(b) == 0 {
			break
		}
		if len(b) < 2 {
			return "", false
		}
		switch c := b[1]; c {
		case '"', '\\', '/':
			out.WriteByte(c)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r := jsonesc.Hex4(b[2:])
			if r < 0 {
				return "", false
			}
			b = b[6:]
			if utf16.IsSurrogate(r) {
				if len(b) >= 2 && b[0] == '\\' && b[1] == 'u' {
					if dec := utf16.DecodeRune(r, jsonesc.Hex4(b[2:])); dec != unicode.ReplacementChar {
						out.WriteRune(dec)
						b = b[6:]
						continue
					}
				}
				r = unicode.ReplacementChar
			}
			out.WriteRune(r)
			continue
		default:
			return "", false
		}
		b = b[2:]
	}
	return out.String(), true
}

// writeValid writes b with each byte that is not UTF-8 as U+FFFD.
func writeValid(out *strings.Builder, b []byte) {
	if utf8.Valid(b) {
		out.Write(b)
		return
	}
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] < utf8.RuneSelf {
			i++
		}
		out.Write(b[:i])
		b = b[i:]
		if len(b) == 0 {
			return
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out.WriteRune(utf8.RuneError)
		} else {
			out.Write(b[:size])
		}
		b = b[size:]
	}
}

package transcript

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestCompressedAndUTF16: a log kept gzipped (rotated logs, .jsonl.gz), or
// saved as UTF-16 with its byte order mark (Windows editors, PowerShell's
// redirection), is read as the UTF-8 text it holds: the same findings and
// counts, a result taken out still found. They were one binary-file error.
func TestCompressedAndUTF16(t *testing.T) {
	session := readLog(t, "claude-code_1af7fc5e.jsonl")
	cut := []byte(strings.Replace(string(session), `{"tool_use_id":"toolu_01PbUvZLKxR3ysWR9vhm6PSH","type":"tool_result",`, `{"type":"text","text":"gone",`, 1))
	if bytes.Equal(cut, session) {
		t.Fatal("the mutation changed nothing")
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	u16 := func(order binary.AppendByteOrder) func([]byte) []byte {
		return func(b []byte) []byte {
			var out []byte
			out = order.AppendUint16(out, 0xfeff)
			for _, u := range utf16.Encode([]rune(string(b))) {
				out = order.AppendUint16(out, u)
			}
			return out
		}
	}
	for _, enc := range []struct {
		name string
		f    func([]byte) []byte
	}{
		{"gzip", gz},
		{"utf-16le", u16(binary.LittleEndian)},
		{"utf-16be", u16(binary.BigEndian)},
		{"gzipped utf-16le", func(b []byte) []byte { return gz(u16(binary.LittleEndian)(b)) }},
	} {
		for _, in := range []struct {
			name string
			data []byte
		}{{"clean", session}, {"result taken out", cut}} {
			t.Run(enc.name+"/"+in.name, func(t *testing.T) {
				wantF, wantSt := validateBytes(t, "log.jsonl", in.data, Options{})
				gotF, gotSt := validateBytes(t, "log.jsonl", enc.f(in.data), Options{})
				if fmt.Sprint(gotF) != fmt.Sprint(wantF) || gotSt != wantSt {
					t.Fatalf("got %+v %v\nwant %+v %v", gotSt, gotF, wantSt, wantF)
				}
				if in.name != "clean" && wantSt.Errors == 0 {
					t.Fatalf("the mutation is not found: %v", wantF)
				}
			})
		}
	}
}

// TestUTF16HalfSurrogate: half a surrogate pair in UTF-16 text is not
// turned into U+FFFD: it is the invalid-utf8 error the API's answer is.
func TestUTF16HalfSurrogate(t *testing.T) {
	var data []byte
	data = binary.LittleEndian.AppendUint16(data, 0xfeff)
	for _, u := range utf16.Encode([]rune(`{"role":"user","content":"a`)) {
		data = binary.LittleEndian.AppendUint16(data, u)
	}
	data = binary.LittleEndian.AppendUint16(data, 0xd800)
	for _, u := range utf16.Encode([]rune("\"}\n")) {
		data = binary.LittleEndian.AppendUint16(data, u)
	}
	fs, _ := validateBytes(t, "half.jsonl", data, Options{})
	if len(fs) != 1 || fs[0].Code != "invalid-utf8" || fs[0].Line != 1 {
		t.Fatalf("findings %v", fs)
	}
}

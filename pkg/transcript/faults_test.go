package transcript

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A full disk fails the first write with ENOSPC, and every later write and
// Close say so. The device itself is left as it was: Create narrows the mode
// of the files it makes, not of a device it is pointed at.
func TestCreateOnFullDevice(t *testing.T) {
	before, err := os.Stat("/dev/full")
	if err != nil {
		t.Skip("no /dev/full on this system")
	}
	w, err := Create("/dev/full", nil)
	if err != nil {
		t.Fatal(err)
	}
	err = w.WriteHeader(Header{Provider: "openai", Model: "m"})
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "write transcript /dev/full: no space left on device") {
		t.Fatalf("err = %v, want ENOSPC naming the file", err)
	}
	if err2 := w.WriteMessage(Message{Message: json.RawMessage(`{}`)}); err2 != err {
		t.Errorf("second write: %v", err2)
	}
	if cerr := w.Close(); cerr != err {
		t.Errorf("Close = %v, want the write error", cerr)
	}
	after, _ := os.Stat("/dev/full")
	if after.Mode() != before.Mode() {
		t.Errorf("/dev/full changed mode from %v to %v", before.Mode(), after.Mode())
	}
}

// A character device takes the records and closes cleanly: fsync, which a
// device refuses, is for regular files only.
func TestCreateOnDevNull(t *testing.T) {
	w, err := Create(os.DevNull, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(Header{Provider: "openai", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func TestRedactorURLPasswords(t *testing.T) {
	r := NewRedactor()
	tests := []struct{ in, want string }{
		{`{"base_url":"http://user:hunter2@127.0.0.1:8080/v1"}`, `{"base_url":"http://user:[REDACTED]@127.0.0.1:8080/v1"}`},
		{`see https://:tok3n@example.com/x`, `see https://:[REDACTED]@example.com/x`},
		// No password, or no userinfo: nothing to hide.
		{`http://user@host/v1`, `http://user@host/v1`},
		{`http://host:8080/v1`, `http://host:8080/v1`},
		{`mailto:someone@example.com`, `mailto:someone@example.com`},
		// The replacement stays inside the JSON string.
		{`{"u":"http://a:b\"c@d"}`, `{"u":"http://a:b\"c@d"}`},
	}
	for _, tt := range tests {
		if got := r.RedactString(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

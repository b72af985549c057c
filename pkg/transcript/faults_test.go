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

// A credential in a base URL's query (Azure's api-key, a signed URL's sig)
// is kept out of every line and message, as a URL password is.
func TestRedactorURLQueryCredentials(t *testing.T) {
	r := NewRedactor()
	tests := []struct{ in, want string }{
		{`{"base_url":"http://h/v1?api-key=SECRET"}`, `{"base_url":"http://h/v1?api-key=[REDACTED]"}`},
		{`cannot connect to https://h/v1?api-version=2024-10-21&API-KEY=s3cr3t: refused`, `cannot connect to https://h/v1?api-version=2024-10-21&API-KEY=[REDACTED]: refused`},
		{`Post "http://h/v1/chat/completions?x-api-key=a&access_token=b&sig=c&code=d&secret=e&password=f&token=g&key=h": EOF`,
			`Post "http://h/v1/chat/completions?x-api-key=[REDACTED]&access_token=[REDACTED]&sig=[REDACTED]&code=[REDACTED]&secret=[REDACTED]&password=[REDACTED]&token=[REDACTED]&key=[REDACTED]": EOF`},
		{`https://s3/x?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff00&X-Amz-Date=1`, `https://s3/x?X-Amz-Credential=[REDACTED]&X-Amz-Signature=[REDACTED]&X-Amz-Date=1`},
		{`http://h/?apikey=1#frag?key=2`, `http://h/?apikey=[REDACTED]#frag?key=2`},
		// In a transcript's line, & is written \u0026 (encoding/json's
		// escape): the parameters after the first were read as its value.
		{`{"content":"get https://s3/x?X-Amz-Date=1\u0026X-Amz-Signature=ff00\u0026token=t\u0026a=b\nok"}`,
			`{"content":"get https://s3/x?X-Amz-Date=1\u0026X-Amz-Signature=[REDACTED]\u0026token=[REDACTED]\u0026a=b\nok"}`},
		// Punctuation after a URL in free text is kept: a sentence's end, a
		// Markdown link's parenthesis, a bracket around it.
		{`see [the file](https://h/f?token=abc)], then.`, `see [the file](https://h/f?token=[REDACTED])], then.`},
		{`(at https://h/f?sig=abc).`, `(at https://h/f?sig=[REDACTED]).`},
		{`[https://h/f?token=[REDACTED]]`, `[https://h/f?token=[REDACTED]]`},
		{`(https://h/f?token=[REDACTED]).`, `(https://h/f?token=[REDACTED]).`},
		// Other parameters, and queries outside URLs, are left alone.
		{`http://h/v1?api-version=2024&model=x`, `http://h/v1?api-version=2024&model=x`},
		{`what?key=value is not a URL`, `what?key=value is not a URL`},
		{`http://h/v1?key=`, `http://h/v1?key=`},
	}
	for _, tt := range tests {
		if got := r.RedactString(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// Text redacted already (a transcript read back, a line shown
		// again) comes out as it went in.
		if got := r.RedactString(tt.want); got != tt.want {
			t.Errorf("Redact(%q) = %q: redacted twice, it changed", tt.want, got)
		}
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h/v1?api-key=SECRET", "http://h/v1?api-key=[REDACTED]"},
		{"http://u:pw@h/v1?Token=x&a=b", "http://u:[REDACTED]@h/v1?Token=[REDACTED]&a=b"},
		{"http://h/v1?a=b#sig=c", "http://h/v1?a=b#sig=c"},
		{"http://h/v1", "http://h/v1"},
		{"not a url ?key=1", "not a url ?key=[REDACTED]"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCredentialParam(t *testing.T) {
	for name, want := range map[string]bool{
		"api-key": true, "API_KEY": true, "apikey": true, "key": true, "token": true, "sig": true,
		"code": true, "secret": true, "password": true, "x-api-key": true, "access_token": true,
		"client_secret": true, "X-Amz-Security-Token": true, "subscription-key": true,
		"api-version": false, "model": false, "deployment": false, "limit": false, "sv": false,
	} {
		if got := CredentialParam(name); got != want {
			t.Errorf("CredentialParam(%q) = %v, want %v", name, got, want)
		}
	}
}

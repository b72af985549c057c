package tools

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The example tools shipped in tools.d, run through the Registry exactly as
// the loop runs them, in a workspace made for each test.

const toolsDir = "../../tools.d"

func loadExamples(t *testing.T, files map[string]string) (*Registry, string) {
	t.Helper()
	ws := t.TempDir()
	writeFiles(t, ws, files)
	r, err := Load([]string{toolsDir}, Options{Dir: ws, Getenv: testEnv(map[string]string{"HOME": ws, "LANG": "C.UTF-8"})})
	if err != nil {
		t.Fatalf("load tools.d: %v", err)
	}
	return r, ws
}

type exampleCase struct {
	name, args string
	want       string // exact content, or a regexp when it starts with ^
	isError    bool
}

func runExamples(t *testing.T, r *Registry, tool string, cases []exampleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := r.Call(context.Background(), tool, "call_1", []byte(tc.args))
			if res.IsError != tc.isError {
				t.Fatalf("is_error = %v, want %v; content:\n%s", res.IsError, tc.isError, res.Content)
			}
			if strings.HasPrefix(tc.want, "^") {
				if !regexp.MustCompile(tc.want).MatchString(res.Content) {
					t.Errorf("content %q does not match %s", res.Content, tc.want)
				}
			} else if res.Content != tc.want {
				t.Errorf("content:\n got  %q\n want %q", res.Content, tc.want)
			}
		})
	}
}

func TestExamplesLoad(t *testing.T) {
	r, _ := loadExamples(t, nil)
	want := []string{"calc", "grep_files", "http_get", "list_dir", "now", "read_file"}
	for _, name := range want {
		d, ok := r.Lookup(name)
		if !ok {
			t.Errorf("tools.d has no %s", name)
			continue
		}
		if len(d.Description) < 80 {
			t.Errorf("%s: the description is too short to tell the model when to use it", name)
		}
	}
	if d, _ := r.Lookup("calc"); d.Command == nil {
		t.Error("calc should show command: instead of run:")
	}
}

func TestExampleNow(t *testing.T) {
	r, _ := loadExamples(t, nil)
	cases := []exampleCase{
		{"default", `{}`, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} \(\w+day, \S+\)\n$`, false},
		{"UTC", `{"zone":"UTC","format":"%Z %z"}`, "UTC +0000\n", false},
		{"format is not code", `{"zone":"UTC","format":"$(id) %%"}`, "$(id) %\n", false},
		{"unknown zone", `{"zone":"Mars/Olympus_Mons"}`, "tool exited with code 2\nstderr:\nunknown time zone: Mars/Olympus_Mons (use an IANA name such as Europe/Paris or America/New_York)", true},
		{"path as zone", `{"zone":"../../../etc/passwd"}`, "tool exited with code 2\nstderr:\nnot a time zone name: ../../../etc/passwd (use an IANA name such as Europe/Paris)", true},
	}
	if _, err := os.Stat("/usr/share/zoneinfo/Asia/Tokyo"); err == nil {
		cases = append(cases, exampleCase{"Tokyo", `{"zone":"Asia/Tokyo","format":"%z"}`, "+0900\n", false})
	}
	runExamples(t, r, "now", cases)
}

func TestExampleReadFile(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 450; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	r, ws := loadExamples(t, map[string]string{
		"notes.txt":    "alpha\nbeta\ngamma\n",
		"long.txt":     long.String(),
		"empty.txt":    "",
		"bin.dat":      "ab\x00cd",
		"sub/deep.txt": "deep\n",
	})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.txt": "secret\n"})
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link.txt"))
	os.Symlink(outside, filepath.Join(ws, "outdir"))
	os.Symlink("notes.txt", filepath.Join(ws, "inside-link.txt"))

	var first400 strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&first400, "%6d\tline %d\n", i, i)
	}
	refused := func(msg string) string { return "tool exited with code 2\nstderr:\n" + msg }
	runExamples(t, r, "read_file", []exampleCase{
		{"whole file", `{"path":"notes.txt"}`, "     1\talpha\n     2\tbeta\n     3\tgamma\n", false},
		{"range", `{"path":"notes.txt","start_line":2,"end_line":2}`, "     2\tbeta\n", false},
		{"from a line", `{"path":"sub/deep.txt","start_line":1}`, "     1\tdeep\n", false},
		{"symlink inside", `{"path":"inside-link.txt","end_line":1}`, "     1\talpha\n", false},
		{"long file", `{"path":"long.txt"}`, first400.String() + "[lines 1-400 shown; more follow: call again with start_line=401]\n", false},
		{"long file, rest", `{"path":"long.txt","start_line":449}`, "   449\tline 449\n   450\tline 450\n", false},
		{"empty", `{"path":"empty.txt"}`, "(empty.txt is empty)\n", false},
		{"absolute", `{"path":"/etc/passwd"}`, refused("refusing absolute path '/etc/passwd': give a path relative to the working directory"), true},
		{"dot-dot", `{"path":"sub/../../secret.txt"}`, refused("no such file or folder: sub/../../secret.txt"), true},
		{"dot-dot to an existing file", `{"path":"../` + filepath.Base(outside) + `/secret.txt"}`, refused("refusing '../" + filepath.Base(outside) + "/secret.txt': it leads outside the working directory"), true},
		{"symlink out", `{"path":"link.txt"}`, refused("refusing 'link.txt': it leads outside the working directory"), true},
		{"through a symlinked folder", `{"path":"outdir/secret.txt"}`, refused("refusing 'outdir/secret.txt': it leads outside the working directory"), true},
		{"folder", `{"path":"sub"}`, refused("sub is not a regular file (use list_dir for folders)"), true},
		{"binary", `{"path":"bin.dat"}`, refused("bin.dat is a binary file (5 bytes); not shown"), true},
		{"missing", `{"path":"nope.txt"}`, refused("no such file or folder: nope.txt"), true},
		{"past the end", `{"path":"notes.txt","start_line":10}`, refused("start_line 10 is past the end of notes.txt (3 lines)"), true},
		{"bad range", `{"path":"notes.txt","start_line":3,"end_line":2}`, refused("end_line (2) is before start_line (3)"), true},
		{"missing path", `{}`, "invalid arguments for read_file: /path: missing required property", true},
	})
}

func TestExampleListDir(t *testing.T) {
	r, ws := loadExamples(t, map[string]string{
		"b.txt":          "",
		"a/one.txt":      "",
		"a/deeper/x.txt": "",
		".hidden/h.txt":  "",
		".env":           "",
	})
	os.Mkdir(filepath.Join(ws, "empty"), 0o755)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(ws, "out"))
	refused := func(msg string) string { return "tool exited with code 2\nstderr:\n" + msg }
	runExamples(t, r, "list_dir", []exampleCase{
		{"default", `{}`, "a/\nb.txt\nempty/\nout@\n", false},
		{"depth 2", `{"depth":2}`, "a/\na/deeper/\na/one.txt\nb.txt\nempty/\nout@\n", false},
		{"hidden", `{"hidden":true}`, ".env\n.hidden/\na/\nb.txt\nempty/\nout@\n", false},
		{"subfolder", `{"path":"a","depth":5}`, "deeper/\ndeeper/x.txt\none.txt\n", false},
		{"empty", `{"path":"empty"}`, "(empty is empty)\n", false},
		{"depth outside the enum", `{"depth":9}`, "invalid arguments for list_dir: /depth: 9 is not one of 1, 2, 3, 4, 5", true},
		{"symlink out", `{"path":"out"}`, refused("refusing 'out': it leads outside the working directory"), true},
		{"parent", `{"path":".."}`, refused("refusing '..': it leads outside the working directory"), true},
		{"a file", `{"path":"b.txt"}`, refused("b.txt is not a folder (use read_file for files)"), true},
	})
}

func TestExampleGrepFiles(t *testing.T) {
	r, ws := loadExamples(t, map[string]string{
		"main.go":     "package main\n// TODO: tidy\nfunc main() {}\n",
		"docs/a.md":   "# Title\ntodo list\n",
		"docs/b.md":   "-v is a flag\n",
		"bin.dat":     "TODO\x00binary",
		".git/config": "TODO in git\n",
		"z/last.go":   "// TODO last\n",
		"z/first.go":  "// TODO first\n",
	})
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(ws, "out"))
	refused := func(msg string) string { return "tool exited with code 2\nstderr:\n" + msg }
	runExamples(t, r, "grep_files", []exampleCase{
		{"matches, sorted", `{"pattern":"TODO"}`, "main.go:2:// TODO: tidy\nz/first.go:1:// TODO first\nz/last.go:1:// TODO last\n", false},
		{"ignore case and glob", `{"pattern":"todo","ignore_case":true,"glob":"*.md"}`, "docs/a.md:2:todo list\n", false},
		{"a folder", `{"pattern":"TODO","path":"z"}`, "z/first.go:1:// TODO first\nz/last.go:1:// TODO last\n", false},
		{"extended syntax", `{"pattern":"^(func|package) "}`, "main.go:1:package main\nmain.go:3:func main() {}\n", false},
		{"pattern like a flag", `{"pattern":"-v"}`, "docs/b.md:1:-v is a flag\n", false},
		{"no match is an answer", `{"pattern":"nothing here"}`, "no matches for /nothing here/\n", false},
		{"invalid pattern", `{"pattern":"("}`, refused("invalid regular expression: Unmatched ( or \\("), true},
		{"outside", `{"pattern":"x","path":"out"}`, refused("refusing 'out': it leads outside the working directory"), true},
		{"absolute", `{"pattern":"x","path":"/etc"}`, refused("refusing absolute path '/etc': give a path relative to the working directory"), true},
	})
}

func TestExampleCalc(t *testing.T) {
	r, _ := loadExamples(t, nil)
	failed := func(msg string) string { return "tool exited with code 2\nstderr:\ncalc: " + msg }
	runExamples(t, r, "calc", []exampleCase{
		{"precedence", `{"expression":"(17.5 * 4 - 3) / 2 ^ 3"}`, "8.375\n", false},
		{"power is right-associative", `{"expression":"2^3^2"}`, "512\n", false},
		{"unary minus binds looser than power", `{"expression":"-2^2"}`, "-4\n", false},
		{"remainder", `{"expression":"10 % 4"}`, "2\n", false},
		{"decimals", `{"expression":"0.1 + 0.2"}`, "0.3\n", false},
		{"leading dot", `{"expression":".5 * 4"}`, "2\n", false},
		{"large integer", `{"expression":"123456789 * 1000"}`, "123456789000\n", false},
		{"fraction", `{"expression":"1/3"}`, "0.333333333333\n", false},
		{"division by zero", `{"expression":"1 / (2 - 2)"}`, failed("division by zero"), true},
		{"remainder by zero", `{"expression":"5 % 0"}`, failed("division by zero"), true},
		{"no code", `{"expression":"system(\"id\")"}`, failed("only numbers, + - * / % ^ and parentheses are allowed"), true},
		{"no shell", `{"expression":"1; rm -rf /"}`, failed("only numbers, + - * / % ^ and parentheses are allowed"), true},
		{"unbalanced", `{"expression":"(1 + 2"}`, failed("missing ')' at the end"), true},
		{"dangling operator", `{"expression":"3 -"}`, failed("the expression ends too soon"), true},
		{"two dots", `{"expression":"1.2.3"}`, failed(`unexpected '.' in ".3"`), true},
		{"empty", `{"expression":" "}`, failed("the expression is empty"), true},
		{"not real", `{"expression":"(-8) ^ 0.5"}`, failed("the result is not a finite number"), true},
	})
}

func TestExampleHTTPGet(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "hello from %s %s", r.Method, r.UserAgent())
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hello", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		// No Content-Length: the size cap must hold while streaming.
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("x", 64<<10))
		for range 100 { // 6.4 MB unless the client hangs up first
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/declared-huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000000")
		w.Write(make([]byte, 5000000))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	closed := httptest.NewServer(mux)
	closedURL := closed.URL
	closed.Close()

	r, _ := loadExamples(t, nil)
	runExamples(t, r, "http_get", []exampleCase{
		{"text", `{"url":"` + srv.URL + `/hello"}`, "hello from GET agentloop-http_get/1", false},
		{"json", `{"url":"` + srv.URL + `/json"}`, `{"ok":true}`, false},
		{"redirect", `{"url":"` + srv.URL + `/moved"}`, "hello from GET agentloop-http_get/1", false},
		{"not found", `{"url":"` + srv.URL + `/missing"}`, "tool exited with code 1\nstderr:\nHTTP 404\nno such page", true},
		{"binary", `{"url":"` + srv.URL + `/image"}`, "HTTP 200: image/png content (10 bytes) not shown: only text is returned\n", false},
		{"redirect loop", `{"url":"` + srv.URL + `/loop"}`, "^tool exited with code 2\nstderr:\nrequest failed: Maximum \\(5\\) redirects followed", true},
		{"declared too large", `{"url":"` + srv.URL + `/declared-huge"}`, "tool exited with code 2\nstderr:\nthe response is larger than 1000000 bytes (its Content-Length says so); not fetched", true},
		{"not http", `{"url":"file:///etc/passwd"}`, "tool exited with code 2\nstderr:\nonly http:// and https:// URLs can be fetched, got: file:///etc/passwd", true},
		{"connection refused", `{"url":"` + closedURL + `/"}`, "^tool exited with code 2\nstderr:\nrequest failed: Failed to connect to 127.0.0.1", true},
	})
	t.Run("size cap", func(t *testing.T) {
		res := r.Call(context.Background(), "http_get", "c", []byte(`{"url":"`+srv.URL+`/huge"}`))
		if res.IsError || !res.Truncated || res.Bytes > 1_000_100 || res.Bytes < 1_000_000 {
			t.Errorf("result: is_error %v truncated %v bytes %d: %.200s", res.IsError, res.Truncated, res.Bytes, res.Content)
		}
		if !strings.HasSuffix(res.Content, fmt.Sprintf("[output truncated: 65536 of %d bytes shown]", res.Bytes)) {
			t.Errorf("content ends %q", res.Content[len(res.Content)-80:])
		}
	})
}

package htmlview

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// injections are markup an attacker who writes a transcript (a model told
// what to say, a tool's output, a file from elsewhere) would put in it to
// run a script or change the page: each element that runs one, a way out
// of each kind of element and attribute the page has, URLs that are
// scripts, markup that the parser rewrites (mXSS), text already escaped,
// and template syntax.
var injections = []string{
	`<script>alert(1)</script>`,
	`<img src=x onerror=alert(1)>`,
	`<svg onload=alert(1)><circle r=9 /></svg>`,
	`"><script>alert(1)</script>`,
	`'><img src=x onerror=alert(1)>`,
	`" onmouseover="alert(1)" x="`,
	`' autofocus onfocus='alert(1)`,
	`</pre></details></main><iframe src="javascript:alert(1)"></iframe>`,
	`</title><script>alert(1)</script>`,
	`</style><script>alert(1)</script>`,
	`</script><script>alert(1)</script>`,
	`</textarea></code></summary><script>alert(1)</script>`,
	`javascript:alert(1)`,
	`<a href="javascript:alert(1)">click</a>`,
	`<!-- <script>alert(1)</script> -->`,
	`<![CDATA[<script>alert(1)</script>]]>`,
	`<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
	`<style>@import 'http://evil.example/x.css'; body{background:url(http://evil.example/p)}</style>`,
	`<meta http-equiv="refresh" content="0;url=http://evil.example/"><base href="http://evil.example/">`,
	`&lt;script&gt;alert(1)&lt;/script&gt; &amp;lt; &#60;b&#62;`,
	`{{template "page" .}}{{.Name}}${alert(1)}` + "`\u2028\u2029<\x00script>",
}

// injectionFields is a transcript in each provider's shape with a
// placeholder in every field of every record that holds text: the
// header's (id, model, base URL, command, parent, tool names, system
// prompt, version), the prompt, the model's text, thinking, call ids,
// names and arguments, results, their names and errors, finish reasons,
// the end's reason and error. "X~field" stands for the text, with the
// field's name after it.
var injectionFields = map[string]string{
	"openai": `{"type":"header","version":1,"id":"X~id","time":"2026-03-01T10:00:00Z","command":"X~command","provider":"openai","model":"X~model","base_url":"http://h/X~base_url","parent":"X~parent","parent_id":"X~parent_id","agentloop":"X~agentloop","system":"X~system","tools":[{"type":"function","function":{"name":"X~header_tool","description":"X~tool_description"}}]}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T10:00:00Z","message":{"role":"user","content":"X~prompt"}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":"X~answer","tool_calls":[{"id":"X~call_id","type":"function","function":{"name":"X~call_name","arguments":"X~arguments"}},{"id":"X~call_id_2","type":"function","function":{"name":"X~call_name_2","arguments":"{\"a\":\"X~argument_value\"}"}}]},"usage":{"input_tokens":10,"output_tokens":5},"latency_ms":10,"finish_reason":"X~finish_reason"}
{"type":"message","seq":3,"step":1,"time":"2026-03-01T10:00:02Z","message":{"role":"tool","tool_call_id":"X~call_id","content":"X~result"},"results":[{"call_id":"X~call_id","name":"X~result_name","exit_code":1,"duration_ms":5,"truncated":false,"is_error":true,"error":"X~result_error"}]}
{"type":"message","seq":4,"step":1,"time":"2026-03-01T10:00:02Z","message":{"role":"tool","tool_call_id":"X~call_id_2","content":"X~result_2"},"results":[{"call_id":"X~call_id_2","name":"X~call_name_2","exit_code":0,"duration_ms":5,"truncated":false,"is_error":false}]}
{"type":"message","seq":5,"step":2,"time":"2026-03-01T10:00:03Z","message":{"role":"assistant","content":"X~final"},"usage":{"input_tokens":20,"output_tokens":5},"latency_ms":10,"finish_reason":"stop"}
{"type":"end","time":"2026-03-01T10:00:04Z","reason":"X~end_reason","error":"X~end_error","steps":2,"usage":{"input_tokens":30,"output_tokens":10}}
`,
	"anthropic": `{"type":"header","version":1,"id":"X~id","time":"2026-03-01T10:00:00Z","command":"run","provider":"anthropic","model":"X~model","system":"X~system","tools":[{"name":"X~header_tool","description":"X~tool_description","input_schema":{"type":"object"}}]}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T10:00:00Z","message":{"role":"user","content":[{"type":"text","text":"X~prompt"}]}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"X~thinking","signature":"X~signature"},{"type":"text","text":"X~answer"},{"type":"tool_use","id":"X~call_id","name":"X~call_name","input":{"q":"X~argument_value"}}]},"usage":{"input_tokens":10,"output_tokens":5},"latency_ms":10,"finish_reason":"X~finish_reason"}
{"type":"message","seq":3,"step":1,"time":"2026-03-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"X~call_id","is_error":true,"content":"X~result"}]},"results":[{"call_id":"X~call_id","name":"X~result_name","exit_code":1,"duration_ms":5,"truncated":false,"is_error":true,"error":"X~result_error"}]}
{"type":"end","time":"2026-03-01T10:00:04Z","reason":"X~end_reason","error":"X~end_error","steps":1,"usage":{"input_tokens":10,"output_tokens":5}}
`,
}

// shownFields are the fields the page shows, for each shape: each must
// be found on it as the text it was.
var shownFields = map[string][]string{
	"openai": {"file_name", "id", "model", "base_url", "parent", "agentloop", "system", "header_tool", "prompt", "answer",
		"call_id", "call_name", "arguments", "call_id_2", "call_name_2", "argument_value", "finish_reason",
		"result", "result_2", "result_error", "final", "end_reason", "end_error"},
	"anthropic": {"file_name", "id", "model", "system", "header_tool", "prompt", "thinking", "answer", "call_id", "call_name",
		"argument_value", "finish_reason", "result", "result_error", "end_reason", "end_error"},
}

var fieldMark = regexp.MustCompile(`X~(\w+)`)

// renderWith draws the shape's transcript with text in every field (and
// in the file's name), each followed by ~ and the field's name.
func renderWith(t *testing.T, shape, text string) string {
	t.Helper()
	src := fieldMark.ReplaceAllStringFunc(injectionFields[shape], func(m string) string {
		v := jsonString(text + "~" + m[2:])
		if shape == "openai" && m == "X~argument_value" {
			v = jsonString(v) // inside the arguments, a JSON text in a string
		}
		return v
	})
	var b bytes.Buffer
	conv := read(t, src)
	if err := Render(context.Background(), &b, conv, Options{Name: text + "~file_name", Dialect: dialect(conv.Shape), Safe: mark}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestInjectionInEveryField draws transcripts whose every field holds
// one of the injections, in the Chat Completions and the Anthropic
// shape. Each page has the elements and attributes the page of a
// harmless text has, one for one: no text added an element, an
// attribute or a script, or ended one early; its one script is its own;
// and every field is shown as the text it was.
func TestInjectionInEveryField(t *testing.T) {
	for _, shape := range []string{"openai", "anthropic"} {
		plain := renderWith(t, shape, "harmless")
		want := skeleton(t, plain)
		if len(want) < 100 {
			t.Fatalf("%s: the page has only %d tags", shape, len(want))
		}
		for i, inj := range injections {
			page := renderWith(t, shape, inj)
			got := skeleton(t, page)
			for j := range max(len(got), len(want)) {
				if j >= len(got) || j >= len(want) || got[j] != want[j] {
					t.Errorf("%s, injection %d %q: the page's tag %d is %q, not %q as for a harmless text",
						shape, i+1, inj, j+1, at(got, j), at(want, j))
					break
				}
			}
			if n := strings.Count(page, "<script"); n != 1 {
				t.Errorf("%s, injection %d: %d scripts", shape, i+1, n)
			}
			if !strings.Contains(page, "<script>"+script+"</script>") {
				t.Errorf("%s, injection %d: the page's script is not its own", shape, i+1)
			}
			text := visibleText(page)
			for _, f := range shownFields[shape] {
				shown := mark(inj)
				if f == "argument_value" {
					shown = jsonString(inj) // shown in its JSON
				}
				// A NUL is shown as U+FFFD, as a browser reads one.
				shown = strings.ReplaceAll(shown, "\x00", "\uFFFD")
				if !strings.Contains(text, shown+"~"+f) {
					t.Errorf("%s, injection %d: field %s is not shown as the text it was", shape, i+1, f)
				}
			}
		}
	}
}

// jsonString is s as the inside of a JSON string, <, > and & as they are
// (a transcript from elsewhere need not escape them as agentloop does).
func jsonString(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")[1 : b.Len()-2]
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(the end)"
}

// skeleton reads a page as a browser's tokenizer does and returns its tags,
// each with the names of its attributes: what a text that got out of its
// place would change. The text between them, and the values of the
// attributes, are left out.
func skeleton(t *testing.T, page string) []string {
	t.Helper()
	var tags []string
	rawEnd := "" // inside script, style, title or textarea: text up to its end tag
	for i := 0; i < len(page); {
		if rawEnd != "" {
			j := strings.Index(strings.ToLower(page[i:]), "</"+rawEnd)
			if j < 0 {
				t.Fatalf("<%s> is never closed", rawEnd)
			}
			i += j
			rawEnd = ""
			continue
		}
		if page[i] != '<' {
			i++
			continue
		}
		rest := page[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			j := strings.Index(rest, "-->")
			if j < 0 {
				t.Fatalf("a comment is never closed")
			}
			tags = append(tags, "<!---->")
			i += j + 3
			continue
		case strings.HasPrefix(rest, "<!"):
			j := strings.IndexByte(rest, '>')
			tags = append(tags, strings.ToLower(rest[:j+1]))
			i += j + 1
			continue
		}
		k := 1
		if k < len(rest) && rest[k] == '/' {
			k++
		}
		if k >= len(rest) || !isLetter(rest[k]) {
			i++ // a < that starts no tag is text
			continue
		}
		n := k
		for n < len(rest) && !isSpace(rest[n]) && rest[n] != '/' && rest[n] != '>' {
			n++
		}
		name := strings.ToLower(rest[1:n])
		tag := "<" + name
		// Attributes: names kept, values skipped, quoted or not.
		for n < len(rest) && rest[n] != '>' {
			switch c := rest[n]; {
			case isSpace(c) || c == '/':
				n++
			default:
				a := n
				for n < len(rest) && !isSpace(rest[n]) && rest[n] != '/' && rest[n] != '>' && rest[n] != '=' {
					n++
				}
				tag += " " + strings.ToLower(rest[a:n])
				if n < len(rest) && rest[n] == '=' {
					n++
					switch {
					case n < len(rest) && (rest[n] == '"' || rest[n] == '\''):
						end := strings.IndexByte(rest[n+1:], rest[n])
						if end < 0 {
							t.Fatalf("an attribute's value is never closed: %.80s", rest[a:])
						}
						n += end + 2
					default:
						for n < len(rest) && !isSpace(rest[n]) && rest[n] != '>' {
							n++
						}
					}
				}
			}
		}
		tags = append(tags, tag+">")
		i += n + 1
		switch name {
		case "script", "style", "title", "textarea":
			rawEnd = name
		}
	}
	return tags
}

// visibleText is the page's text and its attributes' values, as a browser
// reads them (character references decoded), tags left out.
func visibleText(page string) string {
	var b strings.Builder
	for _, part := range regexp.MustCompile(`<[^>]*>|[^<]+`).FindAllString(page, -1) {
		if strings.HasPrefix(part, "<") {
			for _, v := range regexp.MustCompile(`="([^"]*)"`).FindAllStringSubmatch(part, -1) {
				b.WriteString(html.UnescapeString(v[1]) + "\n")
			}
			continue
		}
		b.WriteString(html.UnescapeString(part))
	}
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// TestInjectionDocCount: docs/reliability.md counts the injections the
// test tries.
func TestInjectionDocCount(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`\| (\d+) \| ` + regexp.QuoteMeta("`pkg/htmlview/inject_test.go` TestInjectionInEveryField |")).FindSubmatch(doc)
	if row == nil || string(row[1]) != strconv.Itoa(len(injections)) {
		t.Errorf("docs/reliability.md's row of TestInjectionInEveryField counts %q cases, want %d", row, len(injections))
	}
}

package mcp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/mcptest"
	"github.com/agentloop/agentloop/pkg/wire"
)

func TestKeepGoodContent(t *testing.T) {
	good := base64.StdEncoding.EncodeToString([]byte("\x89PNG...."))
	tests := []struct {
		name, in string
		changed  bool
		want     []string // the content's texts, in order, after the fix
	}{
		{"text alone", `{"content":[{"type":"text","text":"a"}]}`, false, nil},
		{"good images", `{"content":[{"type":"image","mimeType":"image/png","data":"` + good + `"}]}`, false, nil},
		{"one bad image of three", `{"content":[{"type":"text","text":"t"},{"type":"image","mimeType":"image/png","data":"` + good + `"},{"type":"image","mimeType":"image/png","data":"no base64!"},{"type":"image","mimeType":"image/png","data":"` + good + `"}],"isError":false}`,
			true, []string{"t", "", "[image 2 of 3 dropped: not valid base64]", ""}},
		{"bad audio", `{"content":[{"type":"audio","mimeType":"audio/wav","data":"%%%"}]}`, true, []string{"[audio 1 of 1 dropped: not valid base64]"}},
		{"a resource's bad blob", `{"content":[{"type":"resource","resource":{"uri":"file:///a.zip","blob":"?"}}]}`, true, []string{"[resource 1 of 1 (<file:///a.zip>) dropped: its blob is not valid base64]"}},
		{"line breaks in base64 are read, as the SDK reads them", `{"content":[{"type":"image","mimeType":"image/png","data":"` + good[:4] + `\n` + good[4:] + `"}]}`, false, nil},
		{"a key of another case is not the SDK's data", `{"content":[{"type":"image","mimeType":"image/png","DATA":"!!"}]}`, false, nil},
		{"not a tool result", `{"tools":[{"name":"data"}]}`, false, nil},
		{"content that is not a list: the SDK's to say", `{"content":"data"}`, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed := keepGoodContent(json.RawMessage(tt.in))
			if changed != tt.changed {
				t.Fatalf("changed = %v, want %v: %s", changed, tt.changed, out)
			}
			if !changed {
				if string(out) != tt.in {
					t.Errorf("changed the result: %s", out)
				}
				return
			}
			var res struct {
				Content []struct{ Type, Text, Data string }
				IsError *bool `json:"isError"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != len(tt.want) {
				t.Fatalf("%d items, want %d: %s", len(res.Content), len(tt.want), out)
			}
			for i, c := range res.Content {
				if c.Text != tt.want[i] || (tt.want[i] == "" && c.Data != good) {
					t.Errorf("item %d = %+v, want text %q", i, c, tt.want[i])
				}
			}
			if strings.Contains(tt.in, "isError") && res.IsError == nil {
				t.Errorf("the result's other members were lost: %s", out)
			}
		})
	}
}

// One image whose bytes are not base64 leaves the rest of the result, over
// both transports: the text and the good images reach the model, and a
// note stands where the bad image was. The SDK refused the whole result.
func TestBadImageKeepsTheRest(t *testing.T) {
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	defer srv.Close()
	for _, cfg := range []*Config{
		stdioServer(t, "t"),
		{Name: "t", URL: srv.URL, Prefix: "t_", Timeout: 5 * time.Second, StartTimeout: 10 * time.Second, MaxOutput: DefaultMaxOutput, File: "x", Line: 1},
	} {
		t.Run(cfg.Transport(), func(t *testing.T) {
			s := start(t, t.TempDir(), cfg)
			r := s.Call(context.Background(), "t_mixed_images", "c1", nil)
			if r.IsError || r.Content != "three squares\n[image 2 of 3 dropped: not valid base64]" || len(r.Images) != 2 {
				t.Errorf("got %+v; want the text, the note and two images", r)
			}
			for _, im := range r.Images {
				if !strings.HasPrefix(string(im.Data), "\x89PNG") {
					t.Errorf("image %q, want a PNG", im.Data[:min(len(im.Data), 8)])
				}
			}
		})
	}
}

// A stdio server that sends a message that is not JSON-RPC is said to have
// done so, what was wrong and how the message began, escaped; it was
// "exited: exit status 0" (it exits when the connection it broke is
// closed). At the start, and in the middle of a call.
func TestMalformedMessage(t *testing.T) {
	want := `sent a message that is not valid JSON-RPC (invalid message version tag "1.0"; expected "2.0"), which ends the connection: ` +
		`"{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{\"note\":\"caf\\u00e9 \\u001b[31m\"}}"`
	s := Start(context.Background(), []*Config{stdioServer(t, "bad", "--bad-jsonrpc")}, Options{Getenv: testEnv(nil)})
	err := s.Statuses()[0].Err
	s.Close()
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("start: %v\nwant %s", err, want)
	}

	s = start(t, "", stdioServer(t, "t"))
	r := s.Call(context.Background(), "t_bad_jsonrpc", "c1", nil)
	if r.Kind != wire.KindServer || !strings.HasPrefix(r.Content, "mcp server t "+want) {
		t.Errorf("call: %+v\nwant mcp server t %s", r, want)
	}
	if again := s.Call(context.Background(), "t_echo", "c2", []byte(`{"text":"back"}`)); again.IsError || again.Content != "back" {
		t.Errorf("the call after: %+v, want the server restarted", again)
	}
}

// An HTTP server's answers, JSON or a stream of events, are read with
// their tool results fixed; what is no tool result passes as it was.
func TestFixedBody(t *testing.T) {
	bad := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"image","mimeType":"image/png","data":"!!"}]}}`
	fixed := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"[image 1 of 1 dropped: not valid base64]","type":"text"}]}}`
	other := `{"jsonrpc":"2.0","id":4,"result":{"tools":[]}}`
	long := `{"type":"text","text":"` + strings.Repeat("x", 70<<10) + `"},`
	longBad, longFixed := strings.Replace(bad, `[`, `[`+long, 1), strings.Replace(fixed, `[`, `[`+long, 1)
	tests := []struct{ ctype, in, want string }{
		{"application/json", bad, fixed},
		{"application/json; charset=utf-8", other, other},
		{"text/event-stream", "event: message\nid: 1\ndata: " + bad + "\n\n: ping\n\ndata: " + other + "\n\n",
			"event: message\nid: 1\ndata: " + fixed + "\n\n: ping\n\ndata: " + other + "\n\n"},
		{"text/event-stream", "data: " + bad[:24] + "\r\ndata: " + bad[24:] + "\r\n\r\n", "data: " + fixed + "\n\r\n"},
		{"text/event-stream", "data: " + bad + "\n\ndata: unfinished", "data: " + fixed + "\n\ndata: unfinished"},
		{"text/event-stream", "data: " + longBad + "\n\n", "data: " + longFixed + "\n\n"},
		{"text/plain", bad, bad},
	}
	for _, tt := range tests {
		resp := httptest.NewRecorder()
		resp.Header().Set("Content-Type", tt.ctype)
		res := resp.Result()
		res.Body = io.NopCloser(bufio.NewReaderSize(strings.NewReader(tt.in), 16))
		got, err := io.ReadAll(fixedBody(res))
		if err != nil || string(got) != tt.want {
			t.Errorf("%s %q:\ngot  %q (%v)\nwant %q", tt.ctype, tt.in, got, err, tt.want)
		}
	}
}

package e2e

import (
	"encoding/json"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/wire"
)

// fakeServer is a started fake API with its base URL.
type fakeRun interface {
	Check() error
	Remaining() int
	Requests() []fakeapi.Request
	Close()
}

func startFake(t *testing.T, provider string, steps []fakeapi.Step) (fakeRun, string) {
	t.Helper()
	switch provider {
	case "anthropic":
		s := fakeapi.NewAnthropic(steps, "")
		t.Cleanup(s.Close)
		return s, s.BaseURL()
	case "responses":
		s := fakeapi.NewResponses(steps, "")
		t.Cleanup(s.Close)
		return s, s.BaseURL()
	}
	s := fakeapi.NewOpenAI(steps, "")
	t.Cleanup(s.Close)
	return s, s.BaseURL()
}

func strp(s string) *string { return &s }

// fast makes a retried error answer say how long to wait: 10ms, so that a
// burst of them does not spend the SDK's default backoff of seconds.
var fast = map[string]string{"Retry-After-Ms": "10"}

// providerFault is one fault a model API can show, and how a run must end.
type providerFault struct {
	name string
	// steps builds the fake server's script for a provider.
	steps func(provider string) []fakeapi.Step
	// refused points the run at a port nobody listens on.
	refused bool
	args    []string
	// wantCode is 0 (the answer arrives after retries) or 4.
	wantCode int
	// wantErr matches the one line of stderr of a failed run, after
	// "agentloop: <provider>: ".
	wantErr string
	// wantRequests is how many requests the server must see; 0 skips.
	wantRequests int
	// check looks at the requests the server received.
	check func(t *testing.T, reqs []fakeapi.Request)
}

func same(steps ...fakeapi.Step) func(string) []fakeapi.Step {
	return func(string) []fakeapi.Step { return steps }
}

var providerFaults = []providerFault{
	{
		name: "connection refused", refused: true, args: []string{"--max-retries", "1"},
		// (An Anthropic base URL is used without the /v1 its SDK adds.)
		wantCode: 4, wantErr: `^cannot connect to http://127\.0\.0\.1:\d+(/v1)?: connection refused \(is the server running\? check --base-url\)$`,
	},
	{
		name:  "connection reset mid-body, then an answer",
		steps: same(fakeapi.Step{Cut: true}, fakeapi.Step{Text: strp("recovered")}), args: []string{"--max-retries", "1"},
		wantRequests: 2,
	},
	{
		name:  "connection reset mid-body, no retries left",
		steps: same(fakeapi.Step{Cut: true}), args: []string{"--max-retries", "0"},
		wantCode: 4, wantErr: `^the connection broke while the response was read \(status 200\): unexpected EOF$`, wantRequests: 1,
	},
	{
		name:  "slow response beyond --timeout",
		steps: same(fakeapi.Step{Delay: fakeapi.Duration(20 * time.Second), Text: strp("too late")}), args: []string{"--timeout", "1s"},
		wantCode: 4, wantErr: `^run timed out after 1s \(--timeout\)$`,
	},
	{
		name:  "server that never answers, beyond --timeout",
		steps: same(fakeapi.Step{Hang: true}), args: []string{"--timeout", "1s", "--max-retries", "3"},
		wantCode: 4, wantErr: `^run timed out after 1s \(--timeout\)$`,
	},
	{
		name: "429 with Retry-After, then an answer",
		steps: same(fakeapi.Step{Status: 429, Error: "slow down", Headers: map[string]string{"Retry-After": "1"}},
			fakeapi.Step{Text: strp("recovered")}),
		args: []string{"--max-retries", "1"}, wantRequests: 2,
		check: func(t *testing.T, reqs []fakeapi.Request) {
			if gap := reqs[1].Time.Sub(reqs[0].Time); gap < 900*time.Millisecond {
				t.Errorf("the retry came %v after the 429, before the 1s Retry-After", gap)
			}
		},
	},
	{
		name:  "429 with a Retry-After too long to wait",
		steps: same(fakeapi.Step{Status: 429, Error: "slow down", Headers: map[string]string{"Retry-After": "86400"}}),
		args:  []string{"--max-retries", "2"}, wantCode: 4, wantErr: `^429 Too Many Requests: slow down \(the server asks to retry in 1 day, longer than agentloop waits \(1 minute\); try again later\)$`,
	},
	{
		// Past what a duration holds: it was shown as 2562047h47m16.854775807s.
		name:  "429 with a Retry-After past any wait",
		steps: same(fakeapi.Step{Status: 429, Error: "slow down", Headers: map[string]string{"Retry-After": "1e400"}}),
		args:  []string{"--max-retries", "2"}, wantCode: 4, wantErr: `^429 Too Many Requests: slow down \(the server asks to retry in 292 years, longer than agentloop waits \(1 minute\); try again later\)$`,
		wantRequests: 1,
	},
	{
		name: "5xx burst, then an answer",
		steps: same(fakeapi.Step{Status: 500, Error: "boom", Headers: fast}, fakeapi.Step{Status: 502, Error: "bad gateway", Headers: fast},
			fakeapi.Step{Status: 503, Error: "unavailable", Headers: fast}, fakeapi.Step{Text: strp("recovered")}),
		args: []string{"--max-retries", "3"}, wantRequests: 4,
	},
	{
		name: "5xx burst longer than the retries",
		steps: same(fakeapi.Step{Status: 503, Error: "unavailable", Headers: fast}, fakeapi.Step{Status: 503, Error: "still unavailable", Headers: fast},
			fakeapi.Step{Text: strp("never sent")}),
		args: []string{"--max-retries", "1"}, wantCode: 4, wantErr: `^503 Service Unavailable: still unavailable$`, wantRequests: 2,
	},
	{
		name:  "HTML error page from a proxy",
		steps: same(fakeapi.Step{Status: 502, RawBody: strp("<html>\n<body>\n<h1>502 Bad Gateway</h1>\n</body>\n</html>\n")}),
		args:  []string{"--max-retries", "0"}, wantCode: 4, wantErr: `^502 Bad Gateway: 502 Bad Gateway$`,
	},
	{
		name:  "malformed JSON body",
		steps: same(fakeapi.Step{RawBody: strp(`{"id": "x", "choices": [{"index": 0, "message": {"role": "assist`)}),
		args:  []string{"--max-retries", "0"}, wantCode: 4, wantErr: `^the response body is cut short: it ends inside its JSON$`,
	},
	{
		name:  "a body that is not JSON",
		steps: same(fakeapi.Step{RawBody: strp("OK")}),
		args:  []string{"--max-retries", "0"}, wantCode: 4, wantErr: `^the response body is not valid JSON: invalid character 'O' looking for beginning of value at offset 1$`,
	},
	{
		name:  "empty body",
		steps: same(fakeapi.Step{RawBody: strp("")}),
		args:  []string{"--max-retries", "0"}, wantCode: 4, wantErr: `^the response body is empty$`,
	},
	{
		name: "a response with no choices or no content",
		steps: func(p string) []fakeapi.Step {
			switch p {
			case "anthropic":
				return []fakeapi.Step{{Body: json.RawMessage(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":0}}`)}}
			case "responses":
				return []fakeapi.Step{{Body: json.RawMessage(`{"id":"resp_1","object":"response","status":"completed","model":"m","output":[],"usage":{"input_tokens":5,"output_tokens":0}}`)}}
			}
			return []fakeapi.Step{{Body: json.RawMessage(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[]}`)}}
		},
		args: []string{"--max-retries", "0"}, wantCode: 4, wantErr: `^the response has no (choices|content: neither text nor tool calls)$`,
	},
	{
		name:  "a tool call without an id",
		steps: same(fakeapi.Step{ToolCalls: []fakeapi.ToolCall{{ID: "", Name: "look", Arguments: `{}`}}}),
		args:  []string{"--max-retries", "0"}, wantCode: 4,
		wantErr: `^the response is malformed: tool call 1 of the turn \(look\) has no id, so it cannot be answered$`,
	},
	{
		name:  "two tool calls with one id",
		steps: same(fakeapi.Step{ToolCalls: []fakeapi.ToolCall{{ID: "c1", Name: "look", Arguments: `{}`}, {ID: "c1", Name: "look", Arguments: `{"again":true}`}}}),
		args:  []string{"--max-retries", "0"}, wantCode: 4,
		wantErr: `^the response is malformed: two tool calls of the turn have the id "c1", so they cannot be answered apart$`,
	},
}

// TestProviderFaults runs agentloop against a model API that misbehaves in
// every way the table lists, for every provider. Each run ends in a retry
// that succeeds or a one-line error with exit status 4, and leaves a
// transcript that validates and says how the run ended.
func TestProviderFaults(t *testing.T) {
	for _, provider := range []string{"openai", "responses", "anthropic"} {
		for _, tc := range providerFaults {
			t.Run(provider+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				var srv fakeRun
				var url string
				if tc.refused {
					url = closedURL(t)
				} else {
					srv, url = startFake(t, provider, tc.steps(provider))
				}
				args := append([]string{"run", "--provider", provider, "-m", "test-model", "--base-url", url, "-o", "t.jsonl", "--tools-dir", "."}, tc.args...)
				p := runAgentloop(t, dir, nil, nil, append(args, "hello")...)
				t.Logf("exit %d, stderr: %s", p.code, p.stderr)
				if p.code != tc.wantCode {
					t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", p.code, tc.wantCode, p.stdout, p.stderr)
				}
				recs := checkTranscript(t, filepath.Join(dir, "t.jsonl"), false)
				end := endOf(t, recs)
				if tc.wantCode == 0 {
					if p.stdout != "recovered\n" || p.stderr != "" {
						t.Errorf("stdout %q, stderr %q", p.stdout, p.stderr)
					}
					if end.Reason != wire.ReasonStop {
						t.Errorf("end reason %q", end.Reason)
					}
				} else {
					line := oneLine(t, p.stderr)
					// Each of these may pass if sent again: the run says how
					// to go on with it, with the flags it needs again.
					hint := "; continue it with: agentloop replay --resume --base-url " + url + " --tools-dir . t.jsonl"
					if !strings.HasSuffix(line, hint) {
						t.Errorf("stderr %q does not end with %q", line, hint)
					}
					line = strings.TrimSuffix(line, hint)
					prefix := "agentloop: " + provider + ": "
					if strings.HasPrefix(tc.wantErr, "^run timed out") {
						prefix = "agentloop: "
					}
					if !strings.HasPrefix(line, prefix) || !regexp.MustCompile(tc.wantErr).MatchString(strings.TrimPrefix(line, prefix)) {
						t.Errorf("stderr %q, want %s%s", line, prefix, tc.wantErr)
					}
					if p.stdout != "" {
						t.Errorf("stdout %q", p.stdout)
					}
					if end.Reason != wire.ReasonError || end.Error == "" {
						t.Errorf("end record %+v, want reason error with the error", end)
					}
				}
				if srv == nil {
					return
				}
				if err := srv.Check(); err != nil {
					t.Error(err)
				}
				reqs := srv.Requests()
				if tc.wantRequests > 0 && len(reqs) != tc.wantRequests {
					t.Errorf("%d requests, want %d", len(reqs), tc.wantRequests)
				}
				if tc.check != nil && len(reqs) >= tc.wantRequests {
					tc.check(t, reqs)
				}
			})
		}
	}
}

// closedURL is the address of a port that was just closed: connecting to
// it is refused.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// TestEmptyTruncatedAnswer: the output token limit spent before any text
// (a reasoning model's budget) ends the run with exit 1 and the hint to
// raise --max-tokens; the empty turn is left out of the transcript, which
// stays a conversation the API accepts.
func TestEmptyTruncatedAnswer(t *testing.T) {
	t.Parallel()
	for provider, finish := range map[string]string{"openai": "length", "responses": "max_output_tokens", "anthropic": "max_tokens"} {
		t.Run(provider, func(t *testing.T) {
			dir := t.TempDir()
			srv, url := startFake(t, provider, []fakeapi.Step{{Text: strp(""), Finish: finish}})
			p := runAgentloop(t, dir, nil, nil, "run", "--provider", provider, "-m", "m", "--base-url", url, "--tools-dir", ".", "-o", "t.jsonl", "hi")
			if p.code != 1 || p.stderr != "agentloop: the answer was cut off by the output token limit (raise --max-tokens)\n" || p.stdout != "" {
				t.Errorf("exit %d\nstdout %q\nstderr %q", p.code, p.stdout, p.stderr)
			}
			recs := checkTranscript(t, filepath.Join(dir, "t.jsonl"), false)
			if end := endOf(t, recs); end.Reason != wire.ReasonMaxTokens || end.Steps != 1 || end.Usage.OutputTokens == 0 {
				t.Errorf("end %+v", end)
			}
			if len(recs) != 3 { // header, prompt, end
				t.Errorf("%d records, want 3", len(recs))
			}
			if err := srv.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

package cmd

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/benchgen"
	"github.com/agentloop/agentloop/internal/cdp"
	"github.com/agentloop/agentloop/internal/fakeapi"
)

// packageDir is the folder the tests start in, the package's.
var packageDir, _ = os.Getwd()

var screenshots = flag.String("screenshots", "", "save the screenshots of the HTML view in `DIR` (docs/images to refresh the documentation's)")

// browser starts a headless Chromium for the test, or skips it, saying
// why, when there is none; with AGENTLOOP_REQUIRE_BROWSER set (CI
// installs one) a missing browser fails the test instead.
func browser(t *testing.T) *cdp.Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a headless Chromium; not in -short")
	}
	path, err := cdp.Find()
	if err != nil {
		if os.Getenv("AGENTLOOP_REQUIRE_BROWSER") != "" {
			t.Fatalf("%v, and AGENTLOOP_REQUIRE_BROWSER is set", err)
		}
		t.Skipf("skipped: %v; install the Debian package chromium (apt-get install chromium) to run this test", err)
	}
	b, err := cdp.Launch(path, t.TempDir())
	if err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// demoRun runs a small conversation against a fake Anthropic API with
// real tools (two that run in parallel, one that fails, one with long
// output), with model latency and cached tokens, into the transcript path.
func demoRun(t *testing.T, path string) {
	t.Helper()
	text := func(s string) *string { return &s }
	srv := fakeapi.NewAnthropic([]fakeapi.Step{
		{Delay: fakeapi.Duration(700 * time.Millisecond), Text: text("I'll check the current weather in both cities at once."), ToolCalls: []fakeapi.ToolCall{
			{ID: "toolu_01", Name: "get_weather", Arguments: `{"city":"Paris"}`},
			{ID: "toolu_02", Name: "get_weather", Arguments: `{"city":"Dublin"}`},
			{ID: "toolu_03", Name: "get_forecast", Arguments: `{"city":"Paris","days":3}`}}},
		{Delay: fakeapi.Duration(900 * time.Millisecond), Usage: map[string]int64{"cache_read_input_tokens": 1800},
			Text: text("The forecast service failed; the station log may say why."), ToolCalls: []fakeapi.ToolCall{
				{ID: "toolu_04", Name: "station_log", Arguments: `{"station":"LFPG"}`}}},
		{Delay: fakeapi.Duration(1200 * time.Millisecond), Usage: map[string]int64{"cache_read_input_tokens": 2600},
			Text: text("Paris is warmer: 21 °C and sunny, against 14 °C and showers in Dublin.")},
	}, "")
	defer srv.Close()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"weather.yaml":  "name: get_weather\ndescription: Current weather for a city.\nparameters:\n  city: {type: string}\nrun: weather.sh\n",
		"weather.sh":    "#!/bin/sh\ncase \"$ARG_CITY\" in Paris) sleep 0.6; echo 'Paris: 21 °C, sunny';; *) sleep 1.1; echo \"$ARG_CITY: 14 °C, showers\";; esac\n",
		"forecast.yaml": "name: get_forecast\ndescription: Forecast for a city.\nparameters:\n  city: {type: string}\n  days: {type: integer}\nrun: forecast.sh\n",
		"forecast.sh":   "#!/bin/sh\nsleep 0.3\necho 'forecast service: 503 Service Unavailable' >&2\nexit 3\n",
		"log.yaml":      "name: station_log\ndescription: The log of a weather station.\nparameters:\n  station: {type: string}\nrun: log.sh\n",
		"log.sh":        "#!/bin/sh\nsleep 0.4\ni=0; while [ $i -lt 60 ]; do echo \"$(printf '%02d' $i):00 LFPG temp=$((15 + i % 7)) wind=$((i % 13))kt status=ok\"; i=$((i+1)); done\n",
	})
	ios, out, errOut := testIO(map[string]string{"ANTHROPIC_API_KEY": "test"})
	opts := &RunOptions{IO: ios, Prompt: []string{"Is it warmer in Paris or Dublin right now?"}, liveOptions: liveOptions{ToolsDirs: []string{dir}, toolsDirsSet: true, toolsSetting: "--tools-dir",
		MaxSteps: 10, Parallel: 8, Output: path, Model: modelOptions{Provider: "anthropic", Model: "claude-sonnet-4-5", BaseURL: srv.BaseURL()}}}
	if err := runRun(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
}

// The page of a real run, opened in a real browser: it loads nothing from
// the network, logs no error, draws the parallel calls overlapping, works
// from the keyboard, and reads in light and dark mode.
func TestHTMLViewInBrowser(t *testing.T) {
	b := browser(t)
	dir := t.TempDir()
	tr := filepath.Join(dir, "run.jsonl")
	demoRun(t, tr)
	page := filepath.Join(dir, "run.html")
	// Relative names, as a person would type them: the page shows the one
	// it was given.
	t.Chdir(dir)
	ios, out, errOut := testIO(nil)
	if code := Execute(context.Background(), ios, []string{"replay", "--html", "run.html", "run.jsonl"}); code != 0 {
		t.Fatalf("replay --html exited %d: %s%s", code, out, errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := "file://" + page
	p, err := b.Open(ctx, url, cdp.Viewport{Width: 1200, Height: 900})
	if err != nil {
		t.Fatal(err)
	}
	checkQuiet(t, p, url)

	// The two get_weather calls ran at the same time: their bars overlap
	// in time and sit on different lanes.
	var bars []struct {
		Label       string
		Left, Right float64
		Top         float64
	}
	if err := p.Eval(ctx, `[...document.querySelectorAll(".bar.tool")].map(b => {
		const r = b.getBoundingClientRect(); return {Label: b.title, Left: r.left, Right: r.right, Top: r.top} })`, &bars); err != nil {
		t.Fatal(err)
	}
	if len(bars) != 4 {
		t.Fatalf("%d tool bars, want 4: %+v", len(bars), bars)
	}
	paris, dublin := bars[0], bars[1]
	if !strings.Contains(paris.Label, "toolu_01") || !strings.Contains(dublin.Label, "toolu_02") {
		t.Fatalf("bars out of order: %+v", bars)
	}
	if paris.Left >= dublin.Right || dublin.Left >= paris.Right || paris.Top == dublin.Top {
		t.Errorf("parallel calls do not overlap on separate lanes: %+v %+v", paris, dublin)
	}
	if dublin.Right-dublin.Left <= paris.Right-paris.Left {
		t.Errorf("the 1.1 s call is not drawn longer than the 0.6 s one: %+v %+v", paris, dublin)
	}
	var failed int
	if err := p.Eval(ctx, `document.querySelectorAll(".bar.err").length`, &failed); err != nil || failed != 1 {
		t.Errorf("%d failed-call bars (%v), want 1", failed, err)
	}

	// Keyboard: Tab reaches the skip link first, and Enter on a message's
	// summary folds it.
	if err := p.Press(ctx, "Tab", 0); err != nil {
		t.Fatal(err)
	}
	var focused string
	if err := p.Eval(ctx, `document.activeElement.textContent`, &focused); err != nil || focused != "Skip to the messages" {
		t.Errorf("first Tab focuses %q (%v), want the skip link", focused, err)
	}
	var open []bool
	if err := p.Eval(ctx, `(() => { const s = document.querySelector("#m1 > summary"); s.focus(); return [document.querySelector("#m1").open] })()`, &open); err != nil {
		t.Fatal(err)
	}
	if err := p.Press(ctx, "Enter", 0); err != nil {
		t.Fatal(err)
	}
	var after bool
	if err := p.Eval(ctx, `document.querySelector("#m1").open`, &after); err != nil || after == open[0] {
		t.Errorf("Enter on a summary left the message open=%v (%v)", after, err)
	}
	// The zoom buttons widen the timeline.
	var widths []float64
	if err := p.Eval(ctx, `(() => { const w = () => document.querySelector(".tl").getBoundingClientRect().width;
		const a = w(); document.querySelector('[data-zoom="in"]').click(); return [a, w()] })()`, &widths); err != nil {
		t.Fatal(err)
	}
	if widths[1] < 1.9*widths[0] {
		t.Errorf("zoom in: width %v → %v", widths[0], widths[1])
	}
	_ = p.Eval(ctx, `document.querySelector('[data-zoom="fit"]').click(); document.querySelector("#m1").open = true;
		document.activeElement.blur(); window.scrollTo(0, 0)`, nil)

	// Light and dark: the page follows the system's preference.
	var colors []string
	for _, dark := range []bool{false, true} {
		if err := p.SetViewport(ctx, cdp.Viewport{Width: 1200, Height: 900, Dark: dark}); err != nil {
			t.Fatal(err)
		}
		var bg string
		if err := p.Eval(ctx, `getComputedStyle(document.body).backgroundColor`, &bg); err != nil {
			t.Fatal(err)
		}
		colors = append(colors, bg)
		shot, err := p.Screenshot(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		name := map[bool]string{false: "html-view.png", true: "html-view-dark.png"}[dark]
		saveScreenshot(t, name, shot)
	}
	if colors[0] == colors[1] {
		t.Errorf("the background is %s in light and dark mode", colors[0])
	}
	checkQuiet(t, p, url)
}

// A transcript written to attack the page: markup, script, escape
// sequences and bidirectional overrides in every field a model, a tool or
// a file controls. Nothing of it may run or load, and all of it must be
// readable as text.
func TestHTMLViewHostileTranscriptInBrowser(t *testing.T) {
	b := browser(t)
	dir := t.TempDir()
	tr := filepath.Join(dir, "hostile.jsonl")
	if err := os.WriteFile(tr, []byte(hostileTranscript), 0o600); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "hostile.html")
	ios, out, errOut := testIO(nil)
	if code := Execute(context.Background(), ios, []string{"replay", "--html", page, tr}); code != 0 {
		t.Fatalf("replay --html exited %d: %s%s", code, out, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := "file://" + page
	p, err := b.Open(ctx, url, cdp.Viewport{Width: 1000, Height: 800})
	if err != nil {
		t.Fatal(err)
	}
	// Wait a moment for anything an injected element would have started.
	time.Sleep(300 * time.Millisecond)
	checkQuiet(t, p, url)
	var dom struct {
		Scripts, Images, Frames, Handlers, Links int
		Pwned                                    bool
		Text                                     string
	}
	if err := p.Eval(ctx, `(() => ({
		Scripts: document.scripts.length,
		Images: document.querySelectorAll("img, svg image, object, embed, video, audio").length,
		Frames: document.querySelectorAll("iframe, frame").length,
		Handlers: [...document.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length,
		Links: [...document.querySelectorAll("a[href]")].filter(a => !a.getAttribute("href").startsWith("#")).length,
		Pwned: !!window.pwned,
		Text: document.body.innerText }))()`, &dom); err != nil {
		t.Fatal(err)
	}
	if dom.Scripts != 1 || dom.Images != 0 || dom.Frames != 0 || dom.Handlers != 0 || dom.Links != 0 || dom.Pwned {
		t.Errorf("the transcript's text became markup: %+v", struct{ Scripts, Images, Frames, Handlers, Links int }{dom.Scripts, dom.Images, dom.Frames, dom.Handlers, dom.Links})
	}
	for _, want := range []string{
		`<script>window.pwned=1</script>`, `<img src=x onerror="window.pwned=1">`, `\u001b]0;pwned\u0007`,
		`\u202e`, `</pre></details><iframe src="https://example.com">`, "[cleared: 1.2 KiB]",
	} {
		if !strings.Contains(dom.Text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	if strings.ContainsAny(dom.Text, "\x1b\u202e\u0007") {
		t.Errorf("a control character or bidi override reached the page as it is")
	}
	var cleared int
	if err := p.Eval(ctx, `document.querySelectorAll(".badge.cleared").length`, &cleared); err != nil || cleared != 1 {
		t.Errorf("%d results marked cleared (%v), want 1", cleared, err)
	}
	shot, err := p.Screenshot(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	saveScreenshot(t, "html-view-hostile.png", shot)
}

// checkQuiet fails the test on any console error or warning, and on any
// request but the page's own.
func checkQuiet(t *testing.T, p *cdp.Page, url string) {
	t.Helper()
	if c := p.Console(); len(c) > 0 {
		t.Errorf("the page logged:\n%s", strings.Join(c, "\n"))
	}
	reqs := slices.DeleteFunc(p.Requests(), func(u string) bool { return u == url })
	if len(reqs) > 0 {
		t.Errorf("the page made requests: %q", reqs)
	}
}

func saveScreenshot(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := *screenshots
	if dir == "" {
		dir = t.TempDir()
	} else if !filepath.IsAbs(dir) {
		// Relative to the package, whatever the test's working folder.
		dir = filepath.Join(packageDir, dir)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// hostileTranscript attacks through every field it can.
const hostileTranscript = `{"type":"header","version":1,"id":"<b>id</b>","time":"2026-03-01T10:00:00Z","command":"run","provider":"openai","model":"gpt-<script>window.pwned=1</script>","base_url":"javascript:window.pwned=1","tools":[{"type":"function","function":{"name":"<img src=x onerror=\"window.pwned=1\">","parameters":{"type":"object"}}}],"system":"</style><script>window.pwned=1</script>"}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T10:00:00.100Z","message":{"role":"user","content":"<script>window.pwned=1</script> \u001b]0;pwned\u0007 \u202eevil"}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":"<img src=x onerror=\"window.pwned=1\">","tool_calls":[{"id":"call_\"><script>window.pwned=1</script>","type":"function","function":{"name":"get\u001b[2J","arguments":"{\"q\":\"</pre></details><iframe src=\\\"https://example.com\\\">\"}"}},{"id":"call_2","type":"function","function":{"name":"old","arguments":"not json <svg onload=window.pwned=1>"}}]},"usage":{"input_tokens":100,"output_tokens":20},"latency_ms":800,"finish_reason":"tool_calls\"><script>"}
{"type":"message","seq":3,"step":1,"time":"2026-03-01T10:00:01.500Z","message":{"role":"tool","tool_call_id":"call_\"><script>window.pwned=1</script>","content":"</pre></details><iframe src=\"https://example.com\"> <link rel=stylesheet href=https://example.com/x.css> <style>@import 'https://example.com/y.css'; body{background:url(https://example.com/z.png)}</style>"},"results":[{"call_id":"call_\"><script>window.pwned=1</script>","name":"get\u001b[2J","exit_code":0,"duration_ms":400,"truncated":false,"is_error":false}]}
{"type":"message","seq":4,"step":1,"time":"2026-03-01T10:00:01.510Z","message":{"role":"tool","tool_call_id":"call_2","content":"[cleared: 1.2 KiB]"},"results":[{"call_id":"call_2","name":"old","exit_code":0,"duration_ms":5,"truncated":false,"is_error":false}]}
{"type":"message","seq":5,"step":2,"time":"2026-03-01T10:00:02.500Z","message":{"role":"assistant","content":"done \u202e<a href=\"https://example.com\">click</a>"},"usage":{"input_tokens":180,"output_tokens":5},"latency_ms":900,"finish_reason":"stop"}
{"type":"end","time":"2026-03-01T10:00:02.600Z","reason":"error","error":"<script>window.pwned=1</script>","steps":2,"usage":{"input_tokens":280,"output_tokens":25}}
`

// BenchmarkHTMLPage1000Steps draws a 1,000-step run and opens the page in
// Chromium: the time to draw it, and the browser's time from navigation
// to the end of the load event and to the first contentful paint.
func BenchmarkHTMLPage1000Steps(b *testing.B) {
	path, err := cdp.Find()
	if err != nil {
		b.Skipf("skipped: %v", err)
	}
	br, err := cdp.Launch(path, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	dir := b.TempDir()
	tr := filepath.Join(dir, "run.jsonl")
	f, err := os.Create(tr)
	if err != nil {
		b.Fatal(err)
	}
	if err := benchgen.WriteRun(f, "anthropic", 1000, 1); err != nil {
		b.Fatal(err)
	}
	f.Close()
	page := filepath.Join(dir, "run.html")
	ios, _, _ := testIO(nil)
	start := time.Now()
	if err := writeHTMLReport(context.Background(), ios, tr, page); err != nil {
		b.Fatal(err)
	}
	draw := time.Since(start)
	fi, _ := os.Stat(page)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var load, paint float64
	b.ResetTimer()
	for b.Loop() {
		p, err := br.Open(ctx, "file://"+page, cdp.Viewport{Width: 1200, Height: 900})
		if err != nil {
			b.Fatal(err)
		}
		var t struct{ Load, Paint float64 }
		if err := p.Eval(ctx, `({Load: performance.getEntriesByType("navigation")[0].loadEventEnd,
			Paint: (performance.getEntriesByName("first-contentful-paint")[0] || {startTime: 0}).startTime})`, &t); err != nil {
			b.Fatal(err)
		}
		if c := p.Console(); len(c) > 0 {
			b.Fatalf("the page logged: %v", c)
		}
		load += t.Load
		paint += t.Paint
	}
	b.ReportMetric(float64(draw.Milliseconds()), "ms-draw")
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB-page")
	b.ReportMetric(load/float64(b.N), "ms-load")
	b.ReportMetric(paint/float64(b.N), "ms-first-paint")
}

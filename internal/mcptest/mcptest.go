// Package mcptest is an MCP server for tests, built with the SDK agentloop's
// client uses. Its tools return each kind of result (text, structured
// content, images, audio, links, resources, errors), take their time, crash
// the server mid-call, send an image whose bytes are not base64 or a
// message that is not JSON-RPC, or report what the server was given (its
// environment, the headers of the request). It runs over stdio (Main) or
// streamable HTTP (Handler).
package mcptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape a server.
type Options struct {
	// Tools adds that many tools named tool_0001… that answer their name.
	Tools int
	// BadSchemas adds tools the Anthropic API refuses (a top-level anyOf)
	// and the OpenAI API refuses (a description of 1100 characters).
	BadSchemas bool
	// Dotted adds get.time and get_time, names that differ on the server
	// and meet once the dot, which the APIs refuse in a name, becomes _.
	Dotted bool
	// Only, when set, leaves only these tools.
	Only []string
}

// calls counts the calls this process served, for the tools that say so.
var calls atomic.Int64

// NewServer builds the server.
func NewServer(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0.0"}, nil)
	// Only thins the tools every server has; those its options add stay.
	base := true
	add := func(name, desc, schema string, h mcp.ToolHandler) {
		if base && len(o.Only) > 0 && !contains(o.Only, name) {
			return
		}
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return h(ctx, req)
		})
	}
	add("echo", "Echoes its text.", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return text(a.Text), nil
		})
	add("add", "Adds two numbers; the sum is structured content only.", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ A, B float64 }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"sum": a.A + a.B}}, nil
		})
	add("image", "Draws a red square and says so.", `{"type":"object","properties":{"size":{"type":"integer","minimum":1,"maximum":64}}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Size int }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a red square"},
				&mcp.ImageContent{MIMEType: "image/png", Data: RedSquare(max(a.Size, 2))},
			}}, nil
		})
	add("bad_image", "Returns an image whose bytes are not one.", `{"type":"object","properties":{}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte("not a png at all")}}}, nil
		})
	add("mixed_images", "Returns a text and three images; the server sends the second with bytes that are not base64.", `{"type":"object","properties":{}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "three squares"},
				&mcp.ImageContent{MIMEType: "image/png", Data: RedSquare(2)},
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte(badMarker)},
				&mcp.ImageContent{MIMEType: "image/png", Data: RedSquare(3)},
			}}, nil
		})
	add("bad_jsonrpc", "Writes a message that is not JSON-RPC on stdout, then answers.", `{"type":"object","properties":{}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_, _ = os.Stdout.WriteString(BadMessage + "\n")
			return text("answered"), nil
		})
	add("media", "Returns audio, a resource link and an embedded resource.", `{"type":"object"}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			size := int64(2048)
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF....WAVE")},
				&mcp.ResourceLink{URI: "file:///srv/report.pdf", Name: "report.pdf", MIMEType: "application/pdf", Size: &size, Description: "the quarterly report"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///srv/notes.txt", MIMEType: "text/plain", Text: "embedded notes"}},
			}}, nil
		})
	add("record", "Counts the keys of a record of anything (a schema zod writes: additionalProperties {}).", `{"type":"object","properties":{"data":{"type":"object","additionalProperties":{}}},"required":["data"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Data map[string]any }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return text(fmt.Sprintf("%d keys", len(a.Data))), nil
		})
	add("fail", "Always fails.", `{"type":"object","properties":{}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the tool failed on purpose"}}}, nil
		})
	add("slow", "Waits ms milliseconds, or until the call is cancelled; then writes cancelled-NAME in the working folder.", `{"type":"object","properties":{"ms":{"type":"integer"},"name":{"type":"string"}}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				MS   int
				Name string
			}
			_ = json.Unmarshal(req.Params.Arguments, &a)
			if a.Name != "" {
				_ = os.WriteFile("started-"+a.Name, nil, 0o644)
			}
			select {
			case <-time.After(time.Duration(a.MS) * time.Millisecond):
				return text(fmt.Sprintf("slept %dms", a.MS)), nil
			case <-ctx.Done():
				if a.Name != "" {
					_ = os.WriteFile("cancelled-"+a.Name, nil, 0o644)
				}
				return nil, ctx.Err()
			}
		})
	add("crash", "Makes the server exit in the middle of the call.", `{"type":"object","properties":{}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "fatal: crash requested")
			os.Exit(3)
			return nil, nil
		})
	add("pid", "Says the server's process id and how many calls it served.", `{"type":"object","properties":{}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprintf("pid %d, call %d", os.Getpid(), calls.Load())), nil
		})
	add("env", "Says the value of a variable of the server's environment.", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Name string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			v, ok := os.LookupEnv(a.Name)
			if !ok {
				v = "(unset)"
			}
			return text(a.Name + "=" + v), nil
		})
	add("header", "Says the value of a header of the HTTP request.", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Name string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			v := "(none)"
			if req.Extra != nil && req.Extra.Header != nil {
				if h := req.Extra.Header.Get(a.Name); h != "" {
					v = h
				}
			}
			return text(a.Name + ": " + v), nil
		})
	add("big", "Returns n bytes of text.", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ N int }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return text(strings.Repeat("x", a.N)), nil
		})
	add("work", "Does the same small piece of work every time, for benchmarks.", `{"type":"object","properties":{"n":{"type":"string"}}}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ N string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return text("done " + a.N), nil
		})
	base = false
	if o.BadSchemas {
		add("either", "Takes a or b.", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("ok"), nil
			})
		add("wordy", strings.Repeat("Explains at length. ", 55), `{"type":"object","properties":{}}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("ok"), nil
			})
	}
	if o.Dotted {
		for _, name := range []string{"get.time", "get_time"} {
			add(name, "Says what time it is.", `{"type":"object","properties":{}}`,
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text(name + ": noon"), nil
				})
		}
	}
	for i := 1; i <= o.Tools; i++ {
		name := fmt.Sprintf("tool_%04d", i)
		add(name, "Tool number "+strconv.Itoa(i)+".", `{"type":"object","properties":{}}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text(name), nil
			})
	}
	return s
}

// badMarker is the bytes of an image the server sends as badBase64: the
// SDK writes every image as valid base64, so the bytes that are not are
// put in on their way out (see badBytes).
const badMarker = "mcptest: these bytes go out as no base64"

// badBase64 stands for badMarker's base64 on the wire: as long, and not
// base64.
var badBase64 = func() string {
	n := base64.StdEncoding.EncodedLen(len(badMarker))
	return ("!not base64!" + strings.Repeat("*", n))[:n]
}()

// badBytes writes what the server writes, with badMarker's base64 made
// badBase64.
type badBytes struct{ w io.Writer }

func (b badBytes) Write(p []byte) (int, error) {
	q := bytes.ReplaceAll(p, []byte(base64.StdEncoding.EncodeToString([]byte(badMarker))), []byte(badBase64))
	if _, err := b.w.Write(q); err != nil {
		return 0, err
	}
	return len(p), nil
}

// badBytesWriter is an HTTP answer written through badBytes.
type badBytesWriter struct {
	http.ResponseWriter
}

func (w badBytesWriter) Write(p []byte) (int, error) { return badBytes{w.ResponseWriter}.Write(p) }

func (w badBytesWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w badBytesWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// BadMessage is the message that is not JSON-RPC the server writes for
// --bad-jsonrpc and its tool bad_jsonrpc: the version is not 2.0.
const BadMessage = `{"jsonrpc":"1.0","id":1,"result":{"note":"caf\u00e9 \u001b[31m"}}`

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// RedSquare is a PNG image of a red square.
func RedSquare(size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for x := range size {
		for y := range size {
			img.Set(x, y, color.RGBA{R: 255, A: 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// Handler serves the server over streamable HTTP.
func Handler(o Options) http.Handler {
	s := NewServer(o)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(badBytesWriter{w}, r)
	})
}

// Main runs the server over stdio (or HTTP with --http ADDR) and returns
// the exit status:
//
//	--tools N        add N numbered tools
//	--bad-schemas    add tools an API refuses
//	--dotted         add get.time and get_time
//	--only a,b       offer only these tools
//	--child          start a child process in the server's group; write
//	                 server.pid and child.pid in the working folder
//	--stubborn       ignore SIGTERM and the end of stdin
//	--fail-start     print to stderr and exit 1 before answering
//	--hang-start     never answer
//	--bad-jsonrpc    write BadMessage first, a message that is not JSON-RPC
//	--start-delay D  wait D before answering, as npx -y does while it downloads
//	--log FILE       append each start to FILE
func Main(args []string) int {
	fs := flag.NewFlagSet("mcptest", flag.ContinueOnError)
	var o Options
	var only, httpAddr, logFile string
	var child, stubborn, failStart, hangStart, badJSONRPC bool
	fs.IntVar(&o.Tools, "tools", 0, "")
	fs.BoolVar(&o.BadSchemas, "bad-schemas", false, "")
	fs.BoolVar(&o.Dotted, "dotted", false, "")
	fs.StringVar(&only, "only", "", "")
	fs.StringVar(&httpAddr, "http", "", "")
	fs.BoolVar(&child, "child", false, "")
	fs.BoolVar(&stubborn, "stubborn", false, "")
	fs.BoolVar(&failStart, "fail-start", false, "")
	fs.BoolVar(&hangStart, "hang-start", false, "")
	fs.BoolVar(&badJSONRPC, "bad-jsonrpc", false, "")
	startDelay := fs.Duration("start-delay", 0, "")
	fs.StringVar(&logFile, "log", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if only != "" {
		o.Only = strings.Split(only, ",")
	}
	if logFile != "" {
		if f, err := os.OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "start %d\n", os.Getpid())
			f.Close()
		}
	}
	switch {
	case failStart:
		fmt.Fprintln(os.Stderr, "mcptest: cannot open the database: permission denied")
		return 1
	case hangStart:
		time.Sleep(time.Hour)
		return 1
	}
	time.Sleep(*startDelay)
	if stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	if child {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err == nil {
			_ = os.WriteFile("child.pid", []byte(strconv.Itoa(c.Process.Pid)), 0o644)
		}
		_ = os.WriteFile("server.pid", []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	s := NewServer(o)
	if httpAddr != "" {
		return serveHTTP(httpAddr, o)
	}
	if badJSONRPC {
		_, _ = os.Stdout.WriteString(BadMessage + "\n")
	}
	err := s.Run(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(os.Stdin), Writer: nopWriteCloser{badBytes{os.Stdout}}})
	if stubborn {
		time.Sleep(time.Hour)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func serveHTTP(addr string, o Options) int {
	srv := &http.Server{Addr: addr, Handler: Handler(o), ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	return 0
}

// Command floor measures the least memory a program that does agentloop's
// job can take: it makes one Chat Completions request through the SDK, to a
// server in its own process, with the Anthropic SDK linked in too, and
// prints its peak RSS and how much of it is its own (anonymous) and how
// much the pages of its binary.
//
//	go build -o bench/out/floor ./bench/floor && bench/out/floor
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

const answer = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",` +
	`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}]}`

func main() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	defer srv.Close()
	if err := request(srv.URL); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(status), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	fmt.Printf("peak RSS %s = %s its own (anonymous) + %s of mapped files\n", fields["VmHWM"], fields["RssAnon"], fields["RssFile"])
}

func request(url string) error {
	c := openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("k"), option.WithMaxRetries(0))
	_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	// Linked in and set up, as agentloop's is, though not called.
	_ = anthropic.NewClient(aoption.WithAPIKey("k"), aoption.WithBaseURL(url))
	return err
}

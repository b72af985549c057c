// Package httpretry is how agentloop's HTTP requests to a model (and to an
// MCP server over HTTP) meet a network that fails: one retry policy for
// every provider, the bounds of a response (the idle time, the size), the
// pacing of requests that share a server's rate limit, redirects that keep
// a key on its server, and errors said in words a user can act on.
//
// It knows no API: the providers wrap their SDK's client with Wrap, and
// the errors the SDK then returns carry what went wrong here.
package httpretry

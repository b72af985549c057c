package provider

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/agentloop/agentloop/internal/jsonesc"
)

// Request bodies are composed from the stored wire messages as they are:
// the messages are JSON already (each checked when it arrived or was
// written), so a body is their bytes in order, with the few other fields of
// the request around them. Marshalling them again through the SDKs' types
// would re-validate and re-encode the whole conversation on every step, a
// cost that grows with the conversation.
//
// Nor are they copied into one buffer: a body is a list of pieces, the
// messages' own bytes and the few bytes between them, that the request
// reads one after the other (sentBody). A long run's request is the size
// of its conversation; a buffer of it a step would hold the conversation
// twice and leave one behind for the collector at every step. The SDKs
// still send the body, with their errors (see Sized).

// Body builds one JSON object, a request body, as pieces.
type Body struct {
	pieces [][]byte
	// own holds the bytes the body writes itself (keys, commas, small
	// values); pieces hold slices of it. It is never grown in place, so
	// those slices stay as written: a full one is left for a new one.
	own  []byte
	from int // the start of the bytes of own not yet in pieces
	size int
}

// NewBody starts an object of about pieces pieces: a message is one, and
// the bytes before it another.
func NewBody(pieces int) *Body {
	w := &Body{pieces: make([][]byte, 0, pieces+8), own: make([]byte, 0, 512)}
	w.put("{")
	return w
}

// appendOwn writes bytes of the body's own.
func appendOwn[T string | []byte](w *Body, p T) {
	if cap(w.own)-len(w.own) < len(p) {
		w.cut()
		w.own, w.from = make([]byte, 0, max(2*cap(w.own), len(p))), 0
	}
	w.own = append(w.own, p...)
	w.size += len(p)
}

func (w *Body) put(s string) { appendOwn(w, s) }

// cut ends the piece of own bytes being written.
func (w *Body) cut() {
	if len(w.own) > w.from {
		w.pieces = append(w.pieces, w.own[w.from:len(w.own):len(w.own)])
		w.from = len(w.own)
	}
}

// ref adds bytes that are not the body's own, as they are: a message, a
// value already JSON. They must not change while the request is sent.
func (w *Body) ref(p []byte) {
	if len(p) <= 64 {
		appendOwn(w, p)
		return
	}
	w.cut()
	w.pieces = append(w.pieces, p)
	w.size += len(p)
}

func (w *Body) key(k string) {
	if w.size > 1 {
		w.put(",")
	}
	w.put(`"`)
	w.put(k)
	w.put(`":`)
}

// Raw adds a member whose value is JSON text.
func (w *Body) Raw(k string, v []byte) {
	w.key(k)
	w.ref(v)
}

// Str adds a string member.
func (w *Body) Str(k, v string) {
	w.key(k)
	w.ref(quoteJSON(v))
}

// Num adds a whole-number member.
func (w *Body) Num(k string, v int64) {
	w.key(k)
	w.put(strconv.FormatInt(v, 10))
}

// Float adds a number member.
func (w *Body) Float(k string, v float64) {
	w.key(k)
	w.put(strconv.FormatFloat(v, 'g', -1, 64))
}

// Array adds a member whose value is the array of the JSON values given,
// first then rest.
func (w *Body) Array(k string, first []json.RawMessage, rest []json.RawMessage) {
	w.key(k)
	w.put("[")
	n := 0
	for _, part := range [2][]json.RawMessage{first, rest} {
		for _, m := range part {
			if n > 0 {
				w.put(",")
			}
			w.ref(m)
			n++
		}
	}
	w.put("]")
}

// End closes the object.
func (w *Body) End() {
	w.put("}")
	w.cut()
}

// Len is the size of the body in bytes.
func (w *Body) Len() int { return w.size }

// Reader reads the body from the start.
func (w *Body) Reader() io.ReadCloser { return &sentBody{pieces: w.pieces} }

// sentBody is a body as a request reads it, piece after piece.
type sentBody struct {
	pieces [][]byte
	i, off int // the next byte to read: of pieces[i], at off
}

func (r *sentBody) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.pieces) {
		c := copy(p[n:], r.pieces[r.i][r.off:])
		n, r.off = n+c, r.off+c
		if r.off == len(r.pieces[r.i]) {
			r.i, r.off = r.i+1, 0
		}
	}
	if n == 0 && r.i == len(r.pieces) && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (*sentBody) Close() error { return nil }

// Sized gives an attempt of a request the body, with its length and the
// means to read it again for a retry (GetBody). Each SDK passes a body
// that is not a buffer of its own on without either, and the request would
// go out chunked, which not every server takes: the providers call this
// from a middleware of the SDK's, which sees every attempt.
func (w *Body) Sized(req *http.Request) {
	req.Body = w.Reader()
	req.ContentLength = int64(w.size)
	req.GetBody = func() (io.ReadCloser, error) { return w.Reader(), nil }
}

// quoteJSON writes s as a JSON string, without HTML escaping.
func quoteJSON(s string) []byte {
	b, _ := jsonesc.Marshal(s)
	return b
}

package agent

import (
	"strconv"
	"sync"
)

// Request bodies are composed from the stored wire messages as they are:
// the messages are JSON already (each checked when it arrived or was
// written), so a body is their bytes joined, with the few other fields of
// the request around them. Marshalling them again through the SDKs' types
// would re-validate and re-encode the whole conversation on every step, a
// cost that grows with the conversation; joining costs a copy. The SDKs
// still send the body, with their retries and their errors.

// bodyPool holds body buffers between requests: a body is the size of the
// conversation, and a long run would otherwise leave one behind a step.
var bodyPool = sync.Pool{New: func() any { return new([]byte) }}

// body builds one JSON object.
type body struct {
	b []byte
}

// newBody starts an object with room for size bytes.
func newBody(size int) *body {
	bp := bodyPool.Get().(*[]byte)
	b := (*bp)[:0]
	if cap(b) < size {
		b = make([]byte, 0, size+size/8)
	}
	b = append(b, '{')
	return &body{b: b}
}

// release gives the buffer back once the request is done with it.
func (w *body) release() {
	b := w.b[:0]
	w.b = nil
	bodyPool.Put(&b)
}

func (w *body) key(k string) {
	if len(w.b) > 1 {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

// raw adds a member whose value is JSON text.
func (w *body) raw(k string, v []byte) {
	w.key(k)
	w.b = append(w.b, v...)
}

// str adds a string member.
func (w *body) str(k, v string) {
	w.key(k)
	w.b = append(w.b, quoteJSON(v)...)
}

// num adds a whole-number member.
func (w *body) num(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

// float adds a number member.
func (w *body) float(k string, v float64) {
	w.key(k)
	w.b = strconv.AppendFloat(w.b, v, 'g', -1, 64)
}

// array adds a member whose value is the array of the JSON values given,
// first then rest.
func (w *body) array(k string, first []Message, rest []Message) {
	w.key(k)
	w.b = append(w.b, '[')
	n := 0
	for _, part := range [2][]Message{first, rest} {
		for _, m := range part {
			if n > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, m...)
			n++
		}
	}
	w.b = append(w.b, ']')
}

// bytes closes the object and returns it.
func (w *body) bytes() []byte {
	w.b = append(w.b, '}')
	return w.b
}

// messagesSize is the room the messages take in a body.
func messagesSize(msgs []Message) int {
	n := len(msgs) + 2
	for _, m := range msgs {
		n += len(m)
	}
	return n
}

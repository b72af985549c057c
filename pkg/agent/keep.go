package agent

// The conversation is most of what a long run holds: every message is kept
// for the run and sent again with each request. Kept as it was made, each
// message is an allocation of its own, which the collector rounds up to
// its next size class: an 8.3 KB tool message takes 9.5 KB. The messages
// a run keeps are copied instead into blocks they share with the messages
// after them, which wastes only a block's tail.

const (
	// keepMax is the largest message copied into a block. A larger one is
	// kept as it was made: as a large object it is rounded up to a page
	// only, and a copy would cost as much again while it is made.
	keepMax = 32 << 10
	// A run's first block is small, so that a short run keeps little it
	// does not use; each next one is twice the last, up to keepBlockMax.
	keepBlockMin = 16 << 10
	keepBlockMax = 256 << 10
)

// keeper copies the messages of one run into shared blocks. A block stays
// in memory while any message in it is held; the copies are never
// written to, and each ends its block's capacity (an append to one
// copies it).
type keeper struct {
	block []byte
}

// keep returns m as the conversation keeps it.
func (k *keeper) keep(m Message) Message {
	n := len(m)
	if n == 0 || n > keepMax {
		return m
	}
	if cap(k.block)-len(k.block) < n {
		k.block = make([]byte, 0, min(max(2*cap(k.block), keepBlockMin), keepBlockMax))
	}
	start := len(k.block)
	k.block = append(k.block, m...)
	return k.block[start:len(k.block):len(k.block)]
}

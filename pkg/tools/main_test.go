package tools

import (
	"testing"

	"go.uber.org/goleak"
)

// Every call starts goroutines of its own (the stdin writer, the output
// readers, the waiter); none may outlive it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

package sandbox

import (
	"sync"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// ABI is the Landlock ABI version of the running kernel, 0 when it has
// none (or it is turned off), asked once.
var ABI = sync.OnceValue(func() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= abiScoped {
		// As go-landlock does: a kernel whose signal scoping has a known
		// bug is used as ABI 5.
		if errata, err := ll.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = abiScoped - 1
		}
	}
	return v
})

func unsupported() string { return "kernel has no Landlock" }

package early

import (
	"bytes"
	"encoding/binary"
	"io"
)

// The version of a build the go command made without a stamped one (go
// install …@v1.2.3, or go build in a checkout, v0.0.0-date-commit) is in
// the build information it writes into the binary. runtime/debug reads it,
// but importing runtime/debug would make this package wait for nearly every
// other to initialise (see the package comment); debug/buildinfo imports
// runtime/debug. So the ELF binary's ".go.buildinfo" section is read here,
// in the format debug/buildinfo documents and reads: a 32-byte header that
// starts with a magic string, then the Go version and the module
// information as length-prefixed strings. Anything else (another format,
// the strings behind pointers as before Go 1.18, a file that cannot be
// read) gives "", and the command tree answers. (Nor is package strings
// imported: it too is initialised late.)

const (
	buildInfoMagic      = "\xff Go buildinf:"
	buildInfoHeaderSize = 32
	flagsVersionInl     = 0x2 // the strings follow the header
	flagsBigEndian      = 0x1
	maxBuildInfo        = 1 << 20 // a build's module list is a few KB
)

// moduleVersion reads the main module's version from a Go binary in ELF:
// "" when the file holds none it can read, "(devel)" for a build the go
// command could not date.
func moduleVersion(r io.ReaderAt) string {
	data := elfSection(r, ".go.buildinfo")
	if len(data) < buildInfoHeaderSize || !bytes.HasPrefix(data, []byte(buildInfoMagic)) {
		return ""
	}
	if flags := data[15]; flags&flagsVersionInl == 0 || flags&flagsBigEndian != 0 {
		return ""
	}
	rest := data[buildInfoHeaderSize:]
	_, rest, ok := uvarintString(rest) // the Go version
	if !ok {
		return ""
	}
	mod, _, ok := uvarintString(rest)
	// Sentinels of 16 bytes frame the module information
	// (cmd/go/internal/modload.infoStart and infoEnd).
	if !ok || len(mod) < 33 || mod[len(mod)-17] != '\n' {
		return ""
	}
	for line := range bytes.SplitSeq(mod[16:len(mod)-16], []byte("\n")) {
		// mod <TAB> path <TAB> version [<TAB> sum]
		if f := bytes.Split(line, []byte("\t")); len(f) >= 3 && string(f[0]) == "mod" {
			return string(f[2])
		}
	}
	return ""
}

// uvarintString reads a string prefixed with its length as a uvarint.
func uvarintString(b []byte) (s, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// elfSection returns the contents of the named section of a 64-bit
// little-endian ELF file (every Linux target Go has but big-endian ones),
// nil when it is not there or the file is not one.
func elfSection(r io.ReaderAt, name string) []byte {
	var eh [64]byte
	if _, err := r.ReadAt(eh[:], 0); err != nil || string(eh[:4]) != "\x7fELF" || eh[4] != 2 || eh[5] != 1 {
		return nil
	}
	le := binary.LittleEndian
	shoff, shentsize, shnum, shstrndx := le.Uint64(eh[0x28:]), le.Uint16(eh[0x3a:]), le.Uint16(eh[0x3c:]), le.Uint16(eh[0x3e:])
	if shentsize != 64 || shnum == 0 || shstrndx >= shnum || shoff > 1<<62 {
		return nil
	}
	headers := make([]byte, int(shnum)*64)
	if _, err := r.ReadAt(headers, int64(shoff)); err != nil {
		return nil
	}
	// contents reads section i, if it is not over limit bytes.
	contents := func(i int, limit uint64) []byte {
		h := headers[i*64 : i*64+64]
		off, size := le.Uint64(h[0x18:]), le.Uint64(h[0x20:])
		if size > limit || off > 1<<62 {
			return nil
		}
		data := make([]byte, size)
		if _, err := r.ReadAt(data, int64(off)); err != nil {
			return nil
		}
		return data
	}
	names := contents(int(shstrndx), 1<<16)
	want := []byte(name + "\x00")
	for i := range int(shnum) {
		if at := le.Uint32(headers[i*64:]); int(at) < len(names) && bytes.HasPrefix(names[at:], want) {
			return contents(i, maxBuildInfo)
		}
	}
	return nil
}

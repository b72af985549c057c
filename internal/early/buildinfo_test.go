package early

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime/debug"
	"testing"
)

// The test binary's own build information reads as runtime/debug reads it.
func TestModuleVersionOfThisBinary(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in this test binary")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Logf("runtime/debug: main module %q, version %q", bi.Main.Path, bi.Main.Version)
	if got := moduleVersion(f); got != bi.Main.Version {
		t.Errorf("moduleVersion = %q, runtime/debug says %q", got, bi.Main.Version)
	}
}

func TestModuleVersion(t *testing.T) {
	mod := "path\tgithub.com/agentloop/agentloop\nmod\tgithub.com/agentloop/agentloop\tv1.2.3\th1:abc=\ndep\tgithub.com/spf13/cobra\tv1.9.1\th1:x=\n"
	framed := "0123456789abcdef" + mod + "fedcba9876543210"
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"a build", elfWith(buildInfo(0x2, "go1.26.8", framed)), "v1.2.3"},
		{"devel", elfWith(buildInfo(0x2, "go1.26.8", "0123456789abcdef"+"path\tx\nmod\tx\t(devel)\t\n"+"fedcba9876543210")), "(devel)"},
		{"no module line", elfWith(buildInfo(0x2, "go1.26.8", "0123456789abcdef"+"path\tx\n"+"fedcba9876543210")), ""},
		{"strings behind pointers (before Go 1.18)", elfWith(buildInfo(0x0, "go1.17", framed)), ""},
		{"big-endian", elfWith(buildInfo(0x3, "go1.26.8", framed)), ""},
		{"no framing", elfWith(buildInfo(0x2, "go1.26.8", mod)), ""},
		{"another magic", elfWith(append([]byte("\xff Go buildinf?"), buildInfo(0x2, "go1.26.8", framed)[14:]...)), ""},
		{"a string longer than the section", elfWith(buildInfo(0x2, "go1.26.8", framed)[:200]), ""},
		{"not ELF", []byte("#!/bin/sh\necho agentloop v9\n"), ""},
		{"empty", nil, ""},
		{"no such section", elfWith(nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := moduleVersion(bytes.NewReader(tc.file)); got != tc.want {
				t.Errorf("moduleVersion = %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzModuleVersion: any file gives a version or "", never a panic or a
// runaway allocation.
func FuzzModuleVersion(f *testing.F) {
	f.Add(elfWith(buildInfo(0x2, "go1.26.8", "0123456789abcdef"+"mod\tx\tv1\t\n"+"fedcba9876543210")))
	f.Add(elfWith(nil))
	f.Fuzz(func(t *testing.T, file []byte) {
		_ = moduleVersion(bytes.NewReader(file))
	})
}

// buildInfo is a .go.buildinfo section: the header, then (with flag 0x2)
// the Go version and the module information as uvarint-prefixed strings.
func buildInfo(flags byte, goVersion, mod string) []byte {
	b := make([]byte, 32)
	copy(b, "\xff Go buildinf:")
	b[14], b[15] = 8, flags
	for _, s := range []string{goVersion, mod} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// elfWith is a 64-bit little-endian ELF file with a .go.buildinfo section
// holding data (none when data is nil), its section names, and the table of
// section headers at the end, as the linker lays them out.
func elfWith(data []byte) []byte {
	le := binary.LittleEndian
	names := []byte("\x00.shstrtab\x00.go.buildinfo\x00")
	file := make([]byte, 64)
	copy(file, "\x7fELF")
	file[4], file[5], file[6] = 2, 1, 1
	type sec struct {
		name      uint32
		off, size uint64
	}
	secs := []sec{{}} // the null section
	secs = append(secs, sec{name: 1, off: uint64(len(file)), size: uint64(len(names))})
	file = append(file, names...)
	if data != nil {
		secs = append(secs, sec{name: 11, off: uint64(len(file)), size: uint64(len(data))})
		file = append(file, data...)
	}
	shoff := len(file)
	for _, s := range secs {
		h := make([]byte, 64)
		le.PutUint32(h, s.name)
		le.PutUint64(h[0x18:], s.off)
		le.PutUint64(h[0x20:], s.size)
		file = append(file, h...)
	}
	le.PutUint64(file[0x28:], uint64(shoff))
	le.PutUint16(file[0x3a:], 64)
	le.PutUint16(file[0x3c:], uint16(len(secs)))
	le.PutUint16(file[0x3e:], 1)
	return file
}

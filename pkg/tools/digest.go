package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Digest is a hash of what decides what a tools folder's tools do, for
// recording that a user trusted the folder as it was: the name, mode and
// bytes of every file under dir (subfolders included; a symbolic link by
// its target, and the target's bytes when it is a file), and the name and
// bytes of every program a tool file's run: or command: (a script tool's,
// or an MCP server's) names outside dir. Any change to these gives another digest.
//
// It does not cover what those programs read or run in turn, nor the
// programs command: finds on PATH.
func Digest(dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return "", err
	}
	h := sha256.New()
	var outside []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link %q %q\n", rel, target)
			if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
				if isToolFile(root, path) {
					// A tool file by a link is loaded as one.
					outside = append(outside, programsOutside(root, path)...)
				}
				return hashFile(h, rel, path, fi.Mode())
			}
		case d.IsDir():
			fmt.Fprintf(h, "dir %q\n", rel)
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if err := hashFile(h, rel, path, fi.Mode()); err != nil {
				return err
			}
			if isToolFile(root, path) {
				outside = append(outside, programsOutside(root, path)...)
			}
		default:
			fmt.Fprintf(h, "other %q %s\n", rel, d.Type())
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	slices.Sort(outside)
	for _, p := range slices.Compact(outside) {
		fi, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(h, "missing %q\n", p)
			continue
		}
		if err := hashFile(h, p, p, fi.Mode()); err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// isToolFile reports whether path is a file the folder's tools are loaded
// from: a YAML file at its top.
func isToolFile(root, path string) bool {
	return filepath.Dir(path) == root && (filepath.Ext(path) == ".yaml" || filepath.Ext(path) == ".yml")
}

func hashFile(h hash.Hash, name, path string, mode fs.FileMode) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fh := sha256.New()
	n, err := io.Copy(fh, f)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %q %o %d %x\n", name, mode.Perm(), n, fh.Sum(nil))
	return nil
}

// toolRefs is what Digest reads of a tool file: the programs it names.
type toolRefs struct {
	Run     any        `yaml:"run"`
	Command any        `yaml:"command"`
	Tools   []toolRefs `yaml:"tools"`
	// MCP is an MCP server's declaration: its command (an argv list, or
	// a program beside args:) is a program the folder runs too.
	MCP *toolRefs `yaml:"mcp"`
}

// programsOutside lists the programs the tool file at path names with
// run: or command: (a path with a slash) that are not under root, after
// symbolic links. A file that does not parse names none: it will not load
// either.
func programsOutside(root, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > maxFileSize {
		return nil
	}
	var top toolRefs
	_ = yaml.Unmarshal(data, &top) // a type error in one place leaves the rest decoded
	list := append([]toolRefs{top}, top.Tools...)
	if top.MCP != nil {
		list = append(list, *top.MCP)
	}
	var out []string
	for _, r := range list {
		var progs []string
		if s, ok := r.Run.(string); ok {
			progs = append(progs, s)
		}
		program := r.Command
		if argv, ok := r.Command.([]any); ok && len(argv) > 0 {
			program = argv[0]
		}
		if s, ok := program.(string); ok && strings.ContainsRune(s, '/') {
			progs = append(progs, s)
		}
		for _, p := range progs {
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), p)
			}
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			if rel, err := filepath.Rel(root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				out = append(out, filepath.Clean(p))
			}
		}
	}
	return out
}

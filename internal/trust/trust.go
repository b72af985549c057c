// Package trust records the tools folders a user has reviewed and trusts,
// as direnv and mise do for their project files: a folder found by itself
// in the working directory (./tools.d of a cloned repository) offers its
// programs to a model only once the user has said so, and again only after
// they say so for what it has become.
//
// A folder is recorded by its absolute path, symbolic links resolved, with
// the digest of its contents (tools.Digest). The record is one JSON file,
// written whole to a temporary file and renamed over the old one, 0600 in
// a 0700 folder.
package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/tools"
)

// FileName is the record's name in the user's state folder.
const FileName = "trusted-tools.json"

// maxSize bounds the record: anything larger is not one.
const maxSize = 4 << 20

// Store is the record of trusted folders kept in the file Path.
type Store struct {
	Path string
}

// Entry is one trusted folder.
type Entry struct {
	Dir     string    `json:"dir"`
	Digest  string    `json:"digest"`
	Trusted time.Time `json:"trusted"`
}

type file struct {
	Version int     `json:"version"`
	Folders []Entry `json:"folders"`
}

// Status is how a folder stands against the record.
type Status int

const (
	// Untrusted: the folder was never trusted (or was untrusted since).
	Untrusted Status = iota
	// Changed: the folder was trusted, but its contents differ now.
	Changed
	// Trusted: the folder is trusted as it is.
	Trusted
)

// UnreadableError is a trusted folder that could not be read whole to
// check it: it is not used, as a changed one is not.
type UnreadableError struct {
	Dir string
	Err error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("%s cannot be read to check it: %v", e.Dir, e.Err)
}
func (e *UnreadableError) Unwrap() error { return e.Err }

// Canonical is the path a folder is recorded under: absolute, with
// symbolic links resolved.
func Canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Check says whether dir is trusted as it is now.
func (s *Store) Check(dir string) (Status, error) {
	canon, err := Canonical(dir)
	if err != nil {
		return Untrusted, err
	}
	f, err := s.read()
	if err != nil {
		return Untrusted, err
	}
	i := slices.IndexFunc(f.Folders, func(e Entry) bool { return e.Dir == canon })
	if i < 0 {
		return Untrusted, nil
	}
	digest, err := tools.Digest(canon)
	if err != nil {
		return Changed, &UnreadableError{Dir: dir, Err: err}
	}
	if digest != f.Folders[i].Digest {
		return Changed, nil
	}
	return Trusted, nil
}

// Trust records dir as trusted with its contents as they are now.
func (s *Store) Trust(dir string, now time.Time) (Entry, error) {
	canon, err := Canonical(dir)
	if err != nil {
		return Entry{}, err
	}
	if fi, err := os.Stat(canon); err != nil {
		return Entry{}, err
	} else if !fi.IsDir() {
		return Entry{}, fmt.Errorf("%s is not a folder", dir)
	}
	digest, err := tools.Digest(canon)
	if err != nil {
		return Entry{}, err
	}
	f, err := s.read()
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Dir: canon, Digest: digest, Trusted: now.UTC().Truncate(time.Second)}
	f.Folders = slices.DeleteFunc(f.Folders, func(x Entry) bool { return x.Dir == canon })
	f.Folders = append(f.Folders, e)
	slices.SortFunc(f.Folders, func(a, b Entry) int { return strings.Compare(a.Dir, b.Dir) })
	return e, s.write(f)
}

// Untrust removes dir from the record and reports whether it was there. A
// folder that no longer exists is matched by the path given.
func (s *Store) Untrust(dir string) (bool, error) {
	canon, err := Canonical(dir)
	if err != nil {
		if canon, err = filepath.Abs(dir); err != nil {
			return false, err
		}
	}
	f, err := s.read()
	if err != nil {
		return false, err
	}
	n := len(f.Folders)
	f.Folders = slices.DeleteFunc(f.Folders, func(x Entry) bool { return x.Dir == canon })
	if len(f.Folders) == n {
		return false, nil
	}
	return true, s.write(f)
}

// List returns the trusted folders in path order.
func (s *Store) List() ([]Entry, error) {
	f, err := s.read()
	return f.Folders, err
}

func (s *Store) read() (*file, error) {
	f := &file{Version: 1}
	fh, err := os.Open(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxSize {
		return nil, fmt.Errorf("%s: %d bytes is too large for a record of trusted folders", s.Path, fi.Size())
	}
	dec := json.NewDecoder(fh)
	dec.DisallowUnknownFields()
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("%s: not a record of trusted folders: %v (remove it to start afresh)", s.Path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("%s: version %d is not one this agentloop reads", s.Path, f.Version)
	}
	return f, nil
}

// write replaces the record: a reader sees the old one or the new one,
// never a part of either, and a crash leaves one of them.
func (s *Store) write(f *file) error {
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+FileName+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

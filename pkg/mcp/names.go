package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// NamesFile is the name of the cache of tool names in the user's state
// folder.
const NamesFile = "mcp-tools.json"

// Bounds of the cache: a file larger than maxNamesFile is not read; it
// keeps the newest maxNamedServers servers, at most maxNamedTools tools
// each, and the first line of each description cut at maxNameDesc bytes.
const (
	maxNamesFile    = 4 << 20
	maxNamedServers = 200
	maxNamedTools   = 1000
	maxNameDesc     = 160
)

// Names is the cache of the tools each server offered when it last
// started, for what must know a server's tools without starting it: shell
// completion, which a shell waits for (an npx -y server takes seconds to
// start), and tools call and tools show, which start only the server that
// has the tool. A server is found by the digest of its declaration (see
// Config.Digest), so a declaration that changed finds nothing until it has
// started again. The cache holds the names offered and the first line of
// each description, never a value the server was given; it is one JSON
// file, written whole and renamed into place, 0600 in a 0700 folder. Two
// commands that write at once may lose one's update: it is written again
// at the next start.
type Names struct {
	Path string

	once   sync.Once
	loaded *namesFile // as read at the first Lookup
}

// NamedTool is a tool as the cache keeps it.
type NamedTool struct {
	Name        string `json:"name"` // as offered
	Description string `json:"description,omitempty"`
}

type namesFile struct {
	Version int                    `json:"version"`
	Servers map[string]namedServer `json:"servers"` // by digest
}

type namedServer struct {
	// Name is the server's name, for a person reading the file.
	Name    string      `json:"name"`
	Started time.Time   `json:"started"`
	Tools   []NamedTool `json:"tools"`
}

// Lookup returns the tools a server, as declared now, offered when it last
// started, in name order; false when there is no record of it.
func (n *Names) Lookup(c *Config) ([]NamedTool, bool) {
	if n == nil {
		return nil, false
	}
	n.once.Do(func() { n.loaded, _ = n.read() })
	if n.loaded == nil {
		return nil, false
	}
	s, ok := n.loaded.Servers[c.Digest()]
	return s.Tools, ok
}

// Known returns the tools a server offers as far as they are known
// without starting it: its tools: list, or those it offered when it last
// started; false when neither is known.
func (n *Names) Known(c *Config) ([]string, bool) {
	if known, ok := c.Known(); ok {
		return known, true
	}
	tools, ok := n.Lookup(c)
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names, ok
}

// record keeps the tools of the servers that started, each description
// made free of the values they were given. The file is written only when
// it changes.
func (n *Names) record(servers []*server, secrets []string) error {
	if n == nil {
		return nil
	}
	f, err := n.read()
	if err != nil {
		f = &namesFile{Version: 1, Servers: map[string]namedServer{}}
	}
	redact := transcript.NewRedactor(secrets...)
	changed := false
	now := time.Now().UTC().Truncate(time.Second)
	for _, srv := range servers {
		if srv.status.Err != nil {
			continue
		}
		var tools []NamedTool
		for _, t := range srv.status.Tools {
			if len(tools) == maxNamedTools {
				break
			}
			if len(tools) > 0 && tools[len(tools)-1].Name == t.Name {
				continue // two of the server's names offered as one
			}
			tools = append(tools, NamedTool{Name: t.Name, Description: cutDesc(redact.RedactString(firstLine(t.Description)))})
		}
		key := srv.cfg.Digest()
		if old, ok := f.Servers[key]; ok && slices.Equal(old.Tools, tools) && old.Name == srv.cfg.Name {
			continue
		}
		f.Servers[key] = namedServer{Name: srv.cfg.Name, Started: now, Tools: tools}
		changed = true
	}
	if !changed {
		return nil
	}
	// The newest are kept.
	if len(f.Servers) > maxNamedServers {
		keys := slices.SortedFunc(maps.Keys(f.Servers), func(a, b string) int { return f.Servers[b].Started.Compare(f.Servers[a].Started) })
		for _, k := range keys[maxNamedServers:] {
			delete(f.Servers, k)
		}
	}
	return n.write(f)
}

func (n *Names) read() (*namesFile, error) {
	fh, err := os.Open(n.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return &namesFile{Version: 1, Servers: map[string]namedServer{}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxNamesFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxNamesFile {
		return nil, errors.New("too large to be a cache of tool names")
	}
	f := &namesFile{}
	if err := json.Unmarshal(b, f); err != nil || f.Version != 1 || f.Servers == nil {
		return nil, errors.New("not a cache of tool names")
	}
	return f, nil
}

// write replaces the file: a reader sees the old one or the new one.
func (n *Names) write(f *namesFile) error {
	dir := filepath.Dir(n.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+NamesFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // nothing is left to remove after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), n.Path)
}

// Digest identifies a server's declaration as far as it decides the tools
// offered: the name, the command or URL, the working folder, the
// environment and headers as written (${VAR} references not expanded), the
// prefix and the tools: list. Where it is declared, and its timeouts,
// confirm and optional, do not count.
func (c *Config) Digest() string {
	b, _ := json.Marshal(struct {
		Name    string
		Command []string
		URL     string
		Cwd     string
		Dir     string
		Env     []EnvVar
		Headers map[string]string
		Prefix  string
		Tools   []string
		Listed  bool
	}{c.Name, c.Command, c.URL, c.Cwd, c.Dir, c.Env, c.Headers, c.Prefix, c.Tools, c.Tools != nil})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// firstLine is the summary line of a description.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// cutDesc cuts a description at maxNameDesc bytes, on a character's
// boundary.
func cutDesc(s string) string {
	if len(s) <= maxNameDesc {
		return s
	}
	i := maxNameDesc
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

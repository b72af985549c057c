package answerschema

import (
	"path/filepath"
	"strings"
)

// maxNameLen is the longest name OpenAI takes for a response format.
const maxNameLen = 64

// Name is the name the schema is sent under (OpenAI's
// response_format.json_schema.name and text.format.name, which must match
// ^[a-zA-Z0-9_-]{1,64}$): its title, else the name of its file up to the
// first dot, each made of those characters (a run of others becomes one
// "_"); "answer" when neither gives one.
func (s *Schema) Name() string {
	if title, ok := s.tree.get("title").str(); ok {
		if n := cleanName(title); n != "" {
			return n
		}
	}
	if s.file != "" {
		base, _, _ := strings.Cut(filepath.Base(s.file), ".")
		if n := cleanName(base); n != "" {
			return n
		}
	}
	return "answer"
}

// cleanName keeps the characters a name may have, a run of others
// becoming one "_", none at the ends, at most maxNameLen.
func cleanName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if validNameChar(r) {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	n := strings.Trim(b.String(), "_")
	if len(n) > maxNameLen {
		n = strings.TrimRight(n[:maxNameLen], "_")
	}
	return n
}

// validNameChar reports whether a name may hold r.
func validNameChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-'
}

// validName reports whether OpenAI takes name as a response format's name.
func validName(name string) bool {
	if name == "" || len(name) > maxNameLen {
		return false
	}
	for _, r := range name {
		if !validNameChar(r) {
			return false
		}
	}
	return true
}

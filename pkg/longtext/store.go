package longtext

import (
	"io"
	"strconv"
	"strings"
)

// piece is a part of a text: a literal, or (id >= 0) a text taken out.
type piece struct {
	lit string
	id  int
}

// pieces splits s at the references in it.
func (s *Store) pieces(text string) []piece {
	var out []piece
	for {
		i := strings.Index(text, s.tag)
		if i < 0 {
			break
		}
		rest := text[i+len(s.tag):]
		j := strings.IndexByte(rest, 0)
		id, err := strconv.Atoi(rest[:max(j, 0)])
		if j < 0 || err != nil || id < 0 || id >= len(s.refs) {
			break
		}
		if i > 0 {
			out = append(out, piece{lit: text[:i], id: -1})
		}
		out = append(out, piece{id: id})
		text = rest[j+1:]
	}
	if text != "" {
		out = append(out, piece{lit: text, id: -1})
	}
	return out
}

// Has says whether text holds a text taken out.
func (s *Store) Has(text string) bool {
	return s != nil && len(s.refs) > 0 && strings.Contains(text, s.tag)
}

// Len is the length of text with the texts taken out put back.
func (s *Store) Len(text string) int64 {
	if !s.Has(text) {
		return int64(len(text))
	}
	var n int64
	for _, p := range s.pieces(text) {
		if p.id < 0 {
			n += int64(len(p.lit))
		} else {
			n += s.refs[p.id].n
		}
	}
	return n
}

// Open reads text with the texts taken out put back, decoded from the
// file as it is read.
func (s *Store) Open(text string) io.Reader {
	if !s.Has(text) {
		return strings.NewReader(text)
	}
	var rs []io.Reader
	for _, p := range s.pieces(text) {
		if p.id < 0 {
			rs = append(rs, strings.NewReader(p.lit))
			continue
		}
		r := s.refs[p.id]
		rs = append(rs, &unquoteReader{src: io.NewSectionReader(s.src, r.off, r.raw)})
	}
	return io.MultiReader(rs...)
}

// String is text with the texts taken out put back, whole: for what is
// read once and small, or must be whole to be read at all.
func (s *Store) String(text string) (string, error) {
	if !s.Has(text) {
		return text, nil
	}
	var b strings.Builder
	b.Grow(int(s.Len(text)))
	_, err := io.Copy(&b, s.Open(text))
	return b.String(), err
}

// Texts is how many texts were taken out.
func (s *Store) Texts() int {
	if s == nil {
		return 0
	}
	return len(s.refs)
}

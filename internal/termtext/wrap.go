package termtext

import "strings"

// Wrap fits a text (a command's description) to width columns: a paragraph (lines
// up to a blank or indented one) with a line too wide is filled again; the
// others, and indented lines (tables, commands), stay as written.
func Wrap(width int, s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); {
		if lines[i] == "" || lines[i][0] == ' ' || lines[i][0] == '\t' {
			b.WriteString(lines[i] + "\n")
			i++
			continue
		}
		j, wide := i, false
		for ; j < len(lines) && lines[j] != "" && lines[j][0] != ' ' && lines[j][0] != '\t'; j++ {
			wide = wide || len([]rune(lines[j])) > width
		}
		if !wide {
			b.WriteString(strings.Join(lines[i:j], "\n") + "\n")
		} else {
			col := 0
			for _, w := range strings.Fields(strings.Join(lines[i:j], " ")) {
				n := len([]rune(w))
				switch {
				case col == 0:
				case col+1+n > width:
					b.WriteString("\n")
					col = 0
				default:
					b.WriteString(" ")
					col++
				}
				b.WriteString(w)
				col += n
			}
			b.WriteString("\n")
		}
		i = j
	}
	return strings.TrimSuffix(b.String(), "\n")
}

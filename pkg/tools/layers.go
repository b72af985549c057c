package tools

import "fmt"

// checkDuplicates settles tools that share a name. Within one path given
// to Load that is an error naming both places; across paths the tool of
// the earlier path wins and the others are left out, each recorded in the
// winner's Overrides.
func (l *loader) checkDuplicates() {
	type key struct {
		layer int
		name  string
	}
	inLayer := map[key]*tool{}
	winner := map[string]*tool{}
	overridden := map[*tool]bool{}
	for _, t := range l.named {
		k := key{t.layer, t.def.Name}
		if prev, ok := inLayer[k]; ok {
			l.fail(t.def.File, t.nameLine, nil, "duplicate tool name %q (also defined at %s:%d)", t.def.Name, prev.def.File, prev.nameLine)
			continue
		}
		inLayer[k] = t
		if w, ok := winner[t.def.Name]; ok {
			w.def.Overrides = append(w.def.Overrides, fmt.Sprintf("%s:%d", t.def.File, t.def.Line))
			overridden[t] = true
			continue
		}
		winner[t.def.Name] = t
	}
	kept := l.tools[:0]
	for _, t := range l.tools {
		if !overridden[t] {
			kept = append(kept, t)
		}
	}
	l.tools = kept
}

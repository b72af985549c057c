package tools

import (
	"path/filepath"
	"slices"
	"testing"
)

// Folders given to Load are layers: the first one's tool of a name wins
// over a later one's, which Overrides names; within one folder two tools
// of a name are still an error.
func TestLayers(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	writeFiles(t, project, map[string]string{
		"ok.sh":  okScript,
		"x.yaml": "name: x\ndescription: The project's.\nrun: ok.sh\n",
		"a.yaml": "name: a\ndescription: d\nrun: ok.sh\n",
	})
	writeFiles(t, user, map[string]string{
		"ok.sh":  okScript,
		"x.yaml": "# mine\nname: x\ndescription: The user's.\nrun: ok.sh\n",
		"b.yaml": "name: b\ndescription: d\nrun: ok.sh\n",
	})
	opts := Options{Getenv: testEnv(nil)}
	r, err := Load([]string{project, user}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Names(); !slices.Equal(got, []string{"a", "b", "x"}) {
		t.Errorf("names = %v", got)
	}
	x, _ := r.Lookup("x")
	if x.Description != "The project's." || x.File != filepath.Join(project, "x.yaml") {
		t.Errorf("x = %q from %s", x.Description, x.File)
	}
	if want := []string{filepath.Join(user, "x.yaml") + ":2"}; !slices.Equal(x.Overrides, want) {
		t.Errorf("overrides = %q, want %q", x.Overrides, want)
	}
	if a, _ := r.Lookup("a"); a.Overrides != nil {
		t.Errorf("a overrides %q", a.Overrides)
	}

	// The order decides.
	r, err = Load([]string{user, project}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if x, _ := r.Lookup("x"); x.Description != "The user's." {
		t.Errorf("user first: x = %q", x.Description)
	}

	// The same folder twice is one layer, not an override of itself.
	r, err = Load([]string{project, project}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if x, _ := r.Lookup("x"); x.Overrides != nil {
		t.Errorf("a folder overrides itself: %q", x.Overrides)
	}

	// Two of a name in one folder are an error, whatever the other layers.
	writeFiles(t, user, map[string]string{"y.yaml": "name: b\ndescription: again\nrun: ok.sh\n"})
	_, err = Load([]string{project, user}, opts)
	want := []string{`y.yaml:1: duplicate tool name "b" (also defined at b.yaml:1)`}
	if got := loadErrors(t, err, user); !slices.Equal(got, want) {
		t.Errorf("errors = %q, want %q", got, want)
	}
}

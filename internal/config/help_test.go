package config

import (
	"fmt"
	"strings"
	"testing"
)

// A key of the file alone is listed with what it is for.
func TestKeysHelpFileOnly(t *testing.T) {
	help := KeysHelp()
	for _, k := range Keys {
		if k.Env == "" && k.Flag == "" {
			if fileOnly[k.Name] == "" {
				t.Errorf("config --help lists %s (file only) without what it is for: add it to fileOnly", k.Name)
			} else if !strings.Contains(help, fmt.Sprintf("  %-22s (file only) %s\n", k.Name, fileOnly[k.Name])) {
				t.Errorf("%s is not listed as a key of the file alone:\n%s", k.Name, help)
			}
		}
	}
}

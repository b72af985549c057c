package cmd

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// addModeFlags adds the flags of fs to c; with a mode, each says in its
// help that it goes with that mode, and givenLiveOnly finds it.
func addModeFlags(c *cobra.Command, fs *pflag.FlagSet, mode string) {
	fs.VisitAll(func(fl *pflag.Flag) {
		if mode != "" {
			fl.Usage = "with " + mode + ": " + fl.Usage
			if fl.Annotations == nil {
				fl.Annotations = map[string][]string{}
			}
			fl.Annotations[liveOnly] = []string{mode}
		}
		c.Flags().AddFlag(fl)
	})
}

// givenLiveOnly names a flag given that only a live run takes, or "".
func givenLiveOnly(c *cobra.Command) string {
	name := ""
	c.Flags().Visit(func(fl *pflag.Flag) {
		if _, ok := fl.Annotations[liveOnly]; ok && name == "" {
			name = fl.Name
		}
	})
	return name
}

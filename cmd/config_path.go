package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/iostreams"
)

// ConfigPathOptions are the inputs of `agentloop config path`.
type ConfigPathOptions struct {
	IO *iostreams.IOStreams
}

func newCmdConfigPath(ios *iostreams.IOStreams, runF func(*ConfigPathOptions) error) *cobra.Command {
	opts := &ConfigPathOptions{IO: ios}
	return &cobra.Command{
		Use:   "path",
		Short: "Print the path of the configuration file",
		Long: `Print the path agentloop reads its configuration file from,
$XDG_CONFIG_HOME/agentloop/config.yaml, whether or not the file exists.`,
		Example: `  agentloop config path
  mkdir -p "$(dirname "$(agentloop config path)")" && $EDITOR "$(agentloop config path)"`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runConfigPath(opts)
		},
	}
}

func runConfigPath(opts *ConfigPathOptions) error {
	p := configPath(opts.IO)
	if p == "" {
		return errors.New("no configuration folder: set XDG_CONFIG_HOME or HOME")
	}
	_, err := fmt.Fprintln(opts.IO.Out, p)
	return err
}

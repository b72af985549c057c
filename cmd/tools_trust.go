package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/trust"
)

// trustStore is the record of the folders the user trusts, in the user's
// state folder. Without an absolute state folder (no HOME) there is none:
// a record in the working directory would be the repository's to write.
func trustStore(ios *IOStreams) (*trust.Store, error) {
	dir := stateDir(ios)
	if !filepath.IsAbs(dir) {
		return nil, errors.New("no folder to keep trusted tools folders in: set HOME or XDG_STATE_HOME")
	}
	return &trust.Store{Path: filepath.Join(dir, trust.FileName)}, nil
}

// untrustedReason says why agentloop will not use the tools of dir, a
// folder it found by itself, or "" when it will (trust.Reason).
func untrustedReason(ios *IOStreams, dir string) (string, error) {
	store, err := trustStore(ios)
	return trust.Reason(dir, userToolsDir(ios), store, err)
}

// trustCommand is the command that trusts dir.
var trustCommand = trust.Command

// ToolsTrustOptions are the inputs of `agentloop tools trust` and
// `agentloop tools untrust`.
type ToolsTrustOptions struct {
	IO   *IOStreams
	Dir  string
	List bool
	Now  func() time.Time
}

func newCmdToolsTrust(ios *IOStreams, runF func(*ToolsTrustOptions) error) *cobra.Command {
	opts := &ToolsTrustOptions{IO: ios, Dir: "tools.d", Now: time.Now}
	c := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project's tools folder, as it is now",
		Long: `A tools folder agentloop finds by itself in the working directory (./tools.d)
comes with whatever repository you are in, so its tools are offered to the model
only once you have reviewed the folder and trusted it. agentloop records the
folder's path and a digest of its contents (every file in it, and the programs
its tools name outside it) under $XDG_STATE_HOME/agentloop; when any of them
changes, the folder is ignored again until you trust it again.

Folders named by --tools-dir, AGENTLOOP_TOOLS_DIRS or tools_dirs are always
used, and so is your own $XDG_CONFIG_HOME/agentloop/tools.d. DIR defaults to
./tools.d. See docs/tools.md.`,
		Example: `  agentloop tools trust
  agentloop tools trust --list
  agentloop tools untrust`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				if opts.List {
					return flagErrorf("--list takes no folder")
				}
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.List {
				return runToolsTrustList(opts)
			}
			return runToolsTrust(opts)
		},
	}
	c.Flags().BoolVar(&opts.List, "list", false, "list the trusted folders and whether each is as it was trusted")
	return c
}

func runToolsTrust(opts *ToolsTrustOptions) error {
	fi, err := os.Stat(opts.Dir)
	if err != nil {
		return flagErrorf("%s: no such folder", opts.Dir)
	}
	if !fi.IsDir() {
		return flagErrorf("%s is not a folder", opts.Dir)
	}
	store, err := trustStore(opts.IO)
	if err != nil {
		return err
	}
	e, err := store.Trust(opts.Dir, opts.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "trusted %s\n", safeText(e.Dir))
	return nil
}

func runToolsTrustList(opts *ToolsTrustOptions) error {
	store, err := trustStore(opts.IO)
	if err != nil {
		return err
	}
	list, err := store.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no trusted tools folders")
		return nil
	}
	return store.WriteList(opts.IO.Out, list)
}

func newCmdToolsUntrust(ios *IOStreams, runF func(*ToolsTrustOptions) error) *cobra.Command {
	opts := &ToolsTrustOptions{IO: ios, Dir: "tools.d"}
	return &cobra.Command{
		Use:   "untrust [DIR]",
		Short: "Stop trusting a project's tools folder",
		Long: `Forget that you trusted a tools folder (default ./tools.d): agentloop ignores
its tools again until you trust it again. A folder removed since is forgotten by
the path it had.`,
		Example: `  agentloop tools untrust
  agentloop tools untrust ~/src/old-project/tools.d`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runToolsUntrust(opts)
		},
	}
}

func runToolsUntrust(opts *ToolsTrustOptions) error {
	store, err := trustStore(opts.IO)
	if err != nil {
		return err
	}
	found, err := store.Untrust(opts.Dir)
	if err != nil {
		return err
	}
	if !found {
		fmt.Fprintf(opts.IO.ErrOut, "%s was not trusted\n", safeText(opts.Dir))
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "no longer trusted: %s\n", safeText(opts.Dir))
	return nil
}

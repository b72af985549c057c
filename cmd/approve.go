package cmd

import (
	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/approval"
	"github.com/agentloop/agentloop/pkg/engine"
)

// approvalOptions are the flags that say which tools run without a
// person's say-so and which not at all.
type approvalOptions struct {
	Yes   bool
	Allow []string
	Deny  []string
}

func addApprovalFlags(c *cobra.Command, o *approvalOptions) {
	f := c.Flags()
	f.BoolVar(&o.Yes, "yes", false, "run the tools marked confirm: true without asking")
	f.StringArrayVar(&o.Allow, "allow", nil, "run the confirm: true tool `NAME` without asking (repeatable)")
	f.StringArrayVar(&o.Deny, "deny", nil, "leave out the tool `NAME`: it is not offered to the model (repeatable)")
}

// check holds the names to the loaded tools (engine.CheckApproval).
func (o *approvalOptions) check(ts *toolset.Set) error {
	return engine.CheckApproval(ts, o.Allow, o.Deny)
}

// approver is the executor between the loop and the tools
// (pkg/approval), with the tools it stands before.
type approver struct {
	*approval.Approver
	tools *toolset.Set
}

// approvalUI is what the approver needs of the progress display.
type approvalUI interface {
	// hold keeps stderr quiet until release is called.
	hold() (release func())
	// note writes a line on stderr (none with -q).
	note(line string)
}

// newApprover wraps the tools. A nil ui shows nothing; offline is a
// replay's, which asks nobody.
func newApprover(ios *IOStreams, ts *toolset.Set, o approvalOptions, offline bool, ui approvalUI) *approver {
	c := approval.Config{Tools: ts, Yes: o.Yes, Allow: o.Allow, Deny: o.Deny, Offline: offline, Terminal: ios.terminal}
	if ui != nil {
		c.Hold, c.Note = ui.hold, ui.note
	}
	return &approver{Approver: approval.New(c), tools: ts}
}

package toolset

// SandboxLine says how a tool runs: "sandbox: read-only (landlock abi 7:
// fs+tcp)"; for an MCP tool, its server's.
func (ts *Set) SandboxLine(name string) string {
	if _, e, ok := ts.Reg.Sandbox(name); ok {
		return "sandbox: " + e.Describe()
	}
	if ts.MCP == nil {
		return ""
	}
	m, ok := ts.MCP.Lookup(name)
	if !ok {
		return ""
	}
	for _, st := range ts.MCP.Statuses() {
		if st.Config.Name == m.Server {
			if st.Sandbox == "" {
				return "sandbox: off (mcp server " + m.Server + ")"
			}
			return "sandbox: " + st.Sandbox + " (mcp server " + m.Server + ")"
		}
	}
	return ""
}

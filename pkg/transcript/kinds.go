package transcript

import "github.com/agentloop/agentloop/pkg/wire"

// The kinds of a tool call's result are wire's (wire.Kind); these names
// of them are kept for code written against this package before they
// moved there.
const (
	KindOK           = wire.KindOK
	KindUnknownTool  = wire.KindUnknownTool
	KindBadArguments = wire.KindBadArguments
	KindExit         = wire.KindExit
	KindTimeout      = wire.KindTimeout
	KindStart        = wire.KindStart
	KindCanceled     = wire.KindCanceled
	KindBadOutput    = wire.KindBadOutput
	KindToolError    = wire.KindToolError
	KindServer       = wire.KindServer
	KindDenied       = wire.KindDenied
	KindSkipped      = wire.KindSkipped
	KindDeclined     = wire.KindDeclined
	KindPanic        = wire.KindPanic
	SourceMCP        = wire.SourceMCP
)

package agent

import "testing"

func TestRecordedStop(t *testing.T) {
	for reason, want := range map[string]StopReason{
		"refusal": StopRefusal, "content_filter": StopRefusal,
		"length": StopMaxTokens, "max_tokens": StopMaxTokens, "max_output_tokens": StopMaxTokens, "model_context_window_exceeded": StopMaxTokens,
		"pause_turn": StopPause, "stop": "", "end_turn": "", "tool_use": "", "": "",
	} {
		got, ok := RecordedStop(reason)
		if got != want || ok != (want != "") {
			t.Errorf("RecordedStop(%q) = %q, %v; want %q", reason, got, ok, want)
		}
	}
}

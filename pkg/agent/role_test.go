package agent

import (
	"encoding/json"
	"testing"
)

// roleSeeds are messages whose role the quick reading and encoding/json
// must read alike: the plain ones it reads itself, and the spellings it
// leaves to encoding/json.
var roleSeeds = []string{
	`{"role":"tool","tool_call_id":"call_1","content":"a \"quoted\" {result}"}`,
	`{"content":"x","role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
	` { "role" : "user" , "content" : [ {"type":"text","text":"hi"} ] } `,
	`{"role":"user","role":"assistant"}`,
	`{"Role":"user"}`,
	`{"role":"user","ROLE":"tool"}`,
	`{"r\u006fle":"user"}`,
	`{"role":"us\u0065r"}`,
	"{\"role\":\"\x99\"}",
	`{"role":null}`,
	`{"role":1}`,
	`{"content":"no role"}`,
	`["role","user"]`,
	`{"role":"user"`,
	`{"role":"user","content":tru}`,
	``,
}

func TestMessageRoleAsDecoded(t *testing.T) {
	for _, s := range roleSeeds {
		t.Run(s, func(t *testing.T) { checkRole(t, []byte(s)) })
	}
}

func FuzzMessageRole(f *testing.F) {
	for _, s := range roleSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkRole)
}

// checkRole holds messageRole to encoding/json on any valid JSON text.
func checkRole(t *testing.T, msg []byte) {
	if !json.Valid(msg) {
		return
	}
	var m struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(msg, &m)
	if got := messageRole(msg); got != m.Role {
		t.Errorf("messageRole(%s) = %q, encoding/json reads %q", msg, got, m.Role)
	}
}

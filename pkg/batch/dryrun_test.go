package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A dry run counts what a run would do: the items of the shard, those
// finished, retried, and those whose transcript a run would go on from.
func TestDryRun(t *testing.T) {
	items := []Item{{ID: "a", Line: 1}, {ID: "b", Line: 2}, {ID: "c", Line: 3}}
	done := []Result{{ID: "a", Reason: "stop"}, {ID: "b", Reason: "error"}}
	plan := NewPlan(items, done, PlanOptions{RetryFailed: true})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName("c")+".jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d := NewDryRun("in.jsonl", items, plan, Shard{}, dir)
	var b bytes.Buffer
	d.Write(&b)
	want := "in.jsonl: 3 items, no problems\n" + dir + ": 1 finished, 2 to run (1 retried, 1 going on from its transcript)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	js, _ := json.Marshal(d)
	if string(js) != `{"input":"in.jsonl","items":3,"other_shards":0,"to_run":2,"retry":1,"continue":1,"finished":1}` {
		t.Errorf("%s", js)
	}

	b.Reset()
	d = NewDryRun("in.txt", items, NewPlan(items, nil, PlanOptions{Shard: Shard{K: 0, N: 2}}), Shard{K: 0, N: 2}, "")
	d.Write(&b)
	if d.ToRun+d.OtherShards != 3 || !bytes.Contains(b.Bytes(), []byte("shard 0/2: ")) || !bytes.HasSuffix(b.Bytes(), []byte(fmt.Sprintf("a run would run %d item%s\n", d.ToRun, plural(d.ToRun, "", "s")))) {
		t.Errorf("%+v\n%s", d, b.String())
	}
}

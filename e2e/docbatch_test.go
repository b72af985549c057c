package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/internal/scripttest"
	"github.com/agentloop/agentloop/pkg/batch"
)

// The examples of docs/batch.md, checked and run as the docs show them.

const docBatchKey = "sk-test-0123456789abcdefghijklmn"

// docBatchSetup writes an input of n items in a new folder and starts a
// fake API that answers each.
func docBatchSetup(t *testing.T, n int) (dir, url string, srv *fakeapi.OpenAI) {
	t.Helper()
	dir = t.TempDir()
	var in strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, "{\"id\": \"case-%d\", \"prompt\": \"question %d\"}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "evals.jsonl"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	srv = fakeapi.NewOpenAIConversations(&fakeapi.Conversations{Steps: []fakeapi.Step{{Text: strp("answer to {{prompt}}")}}}, docBatchKey)
	t.Cleanup(srv.Close)
	return dir, srv.BaseURL(), srv
}

// docShell runs a script as a CI runner would, in dir with env.
func docShell(t *testing.T, dir string, env []string, shell []string, script string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, shell[0], append(shell[1:], script)...)
	c.Dir = dir
	c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"), "XDG_STATE_HOME=" + filepath.Join(dir, ".state")}, env...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, script, out.String())
	}
}

// checkMerged: the merged results hold every item of the input, answered.
func checkMerged(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != n {
		t.Fatalf("%d merged results, want %d", len(lines), n)
	}
	for i, l := range lines {
		var r batch.Result
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.ID != fmt.Sprintf("case-%d", i+1) || r.Answer != fmt.Sprintf("answer to question %d", i+1) {
			t.Errorf("line %d: %v %s", i+1, err, l)
		}
	}
}

// ghWorkflow is the part of a GitHub Actions workflow the example uses;
// a key it does not know (a misspelling) fails the decoding.
type ghWorkflow struct {
	Name string `yaml:"name"`
	On   any    `yaml:"on"`
	Jobs map[string]struct {
		RunsOn   string `yaml:"runs-on"`
		Needs    string `yaml:"needs"`
		Strategy struct {
			FailFast *bool            `yaml:"fail-fast"`
			Matrix   map[string][]int `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []ghStep `yaml:"steps"`
	} `yaml:"jobs"`
}

type ghStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
	Run  string            `yaml:"run"`
}

var ghExpr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// expand replaces the ${{ }} expressions of s; one the test does not know
// (a typo) fails it.
func expand(t *testing.T, s string, vars map[string]string) string {
	t.Helper()
	return ghExpr.ReplaceAllStringFunc(s, func(m string) string {
		k := ghExpr.FindStringSubmatch(m)[1]
		v, ok := vars[k]
		if !ok {
			t.Fatalf("unknown expression %s in %q", m, s)
		}
		return v
	})
}

// TestDocBatchWorkflow runs docs/batch.md's GitHub Actions workflow: every
// shard of the matrix, then the merge job, with artifacts passed between
// them as the actions would.
func TestDocBatchWorkflow(t *testing.T) {
	t.Parallel()
	blocks, err := scripttest.DocBlocks()
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	dec := yaml.NewDecoder(strings.NewReader(blocks["batch-workflow.yml"]))
	dec.KnownFields(true)
	if err := dec.Decode(&wf); err != nil {
		t.Fatalf("docs/batch.md's workflow: %v", err)
	}
	shard, merge := wf.Jobs["shard"], wf.Jobs["merge"]
	shards := shard.Strategy.Matrix["shard"]
	if len(shards) < 2 || merge.Needs != "shard" {
		t.Fatalf("matrix %v, merge needs %q", shards, merge.Needs)
	}
	for i, k := range shards {
		if k != i {
			t.Fatalf("matrix shards %v: want 0 to %d", shards, len(shards)-1)
		}
	}

	dir, url, srv := docBatchSetup(t, 20)
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	bash := []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"}
	run := func(steps []ghStep, vars map[string]string) {
		for _, st := range steps {
			switch {
			case strings.Contains(st.Run, "go install github.com/agentloop/agentloop"):
				// agentloop is on PATH already.
			case st.Run != "":
				env := []string{"OPENAI_BASE_URL=" + url}
				for k, v := range st.Env {
					env = append(env, k+"="+expand(t, v, vars))
				}
				script := expand(t, st.Run, vars)
				if strings.Contains(script, "agentloop batch evals.jsonl") && !strings.Contains(script, fmt.Sprintf("/%d ", len(shards))) {
					t.Errorf("the shard command does not split in %d: %s", len(shards), script)
				}
				docShell(t, dir, env, bash, script)
			case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
				name, path := expand(t, st.With["name"], vars), expand(t, st.With["path"], vars)
				copyTree(t, filepath.Join(dir, path), filepath.Join(artifacts, name))
			case strings.HasPrefix(st.Uses, "actions/download-artifact@"):
				names, _ := filepath.Glob(filepath.Join(artifacts, st.With["pattern"]))
				if len(names) != len(shards) {
					t.Fatalf("download %s: %d artifacts, want %d", st.With["pattern"], len(names), len(shards))
				}
				for _, n := range names {
					copyTree(t, n, filepath.Join(dir, st.With["path"], filepath.Base(n)))
				}
			case strings.HasPrefix(st.Uses, "actions/cache/"):
				// Each shard keeps its own OUTDIR, per run of the workflow.
				for _, k := range []string{st.With["key"], st.With["path"]} {
					if !strings.Contains(k, "${{ matrix.shard }}") {
						t.Errorf("%s: %q is not per shard", st.Uses, k)
					}
				}
				expand(t, st.With["key"]+st.With["restore-keys"], vars)
			}
		}
	}
	for _, k := range shards {
		run(shard.Steps, map[string]string{
			"matrix.shard": strconv.Itoa(k), "secrets.OPENAI_API_KEY": docBatchKey,
			"github.run_id": "1", "github.run_attempt": "1",
		})
	}
	run(merge.Steps, map[string]string{})
	checkMerged(t, filepath.Join(dir, "results.jsonl"), 20)
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	if srv.Conversations() != 20 {
		t.Errorf("%d conversations for 20 items", srv.Conversations())
	}
}

// k8sJob is the part of the Job API (batch/v1) the example uses, field
// names as the API spells them: a misspelt or unknown one fails the
// decoding, as the API server would refuse it.
type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          int    `yaml:"completions"`
		Parallelism          int    `yaml:"parallelism"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		MaxFailedIndexes     *int   `yaml:"maxFailedIndexes"`
		Template             struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string   `yaml:"name"`
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string `yaml:"name"`
						Value     string `yaml:"value"`
						ValueFrom *struct {
							SecretKeyRef *struct {
								Name string `yaml:"name"`
								Key  string `yaml:"key"`
							} `yaml:"secretKeyRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestDocBatchJob checks docs/batch.md's Kubernetes Indexed Job and runs
// its container's command for every index, then the merge the docs give.
func TestDocBatchJob(t *testing.T) {
	t.Parallel()
	blocks, err := scripttest.DocBlocks()
	if err != nil {
		t.Fatal(err)
	}
	var job k8sJob
	dec := yaml.NewDecoder(strings.NewReader(blocks["batch-job.yaml"]))
	dec.KnownFields(true)
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("docs/batch.md's Job: %v", err)
	}
	s := job.Spec
	switch {
	case job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Metadata.Name == "":
		t.Fatalf("not a batch/v1 Job: %+v", job)
	case s.CompletionMode != "Indexed":
		t.Fatalf("completionMode %q: $JOB_COMPLETION_INDEX is set only for Indexed", s.CompletionMode)
	case s.BackoffLimitPerIndex != nil && s.Template.Spec.RestartPolicy != "Never":
		t.Fatalf("backoffLimitPerIndex needs restartPolicy Never, not %q", s.Template.Spec.RestartPolicy)
	case len(s.Template.Spec.Containers) != 1:
		t.Fatalf("%d containers", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	if strings.Join(c.Command, " ") != "sh -c" || len(c.Args) != 1 {
		t.Fatalf("command %v args %v", c.Command, c.Args)
	}
	script := c.Args[0]
	m := regexp.MustCompile(`--shard \$JOB_COMPLETION_INDEX/(\d+)`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("no --shard $JOB_COMPLETION_INDEX/N in %q", script)
	}
	if n, _ := strconv.Atoi(m[1]); n != s.Completions || s.Parallelism > s.Completions || s.Parallelism < 1 {
		t.Fatalf("--shard .../%s, completions %d, parallelism %d", m[1], s.Completions, s.Parallelism)
	}
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		mounts[vm.Name] = vm.MountPath
	}
	if mounts["data"] != "/data" {
		t.Errorf("no volume at /data: %v", mounts)
	}
	for _, v := range s.Template.Spec.Volumes {
		if _, ok := mounts[v.Name]; !ok || v.PersistentVolumeClaim == nil {
			t.Errorf("volume %s: not mounted, or not a claim that outlives a pod", v.Name)
		}
		delete(mounts, v.Name)
	}
	if len(mounts) != 0 {
		t.Errorf("mounts without a volume: %v", mounts)
	}
	key := false
	for _, e := range c.Env {
		key = key || (e.Name == "OPENAI_API_KEY" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil)
	}
	if !key {
		t.Error("OPENAI_API_KEY does not come from a secret")
	}

	dir, url, srv := docBatchSetup(t, 20)
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	os.Rename(filepath.Join(dir, "evals.jsonl"), filepath.Join(data, "evals.jsonl"))
	script = strings.ReplaceAll(script, "/data", data)
	for i := range s.Completions {
		docShell(t, dir, []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i), "OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=" + docBatchKey}, []string{"sh", "-c"}, script)
	}
	docShell(t, dir, nil, []string{"sh", "-c"}, fmt.Sprintf("agentloop batch merge %[1]s/out/shard-* --input %[1]s/evals.jsonl -o %[1]s/results.jsonl", data))
	checkMerged(t, filepath.Join(data, "results.jsonl"), 20)
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	if !strings.Contains(readDoc(t), "agentloop batch merge /data/out/shard-* --input /data/evals.jsonl -o /data/results.jsonl") {
		t.Error("docs/batch.md no longer gives the merge this test runs")
	}
}

// TestDocBatchSlurm runs docs/batch.md's Slurm script for each index of
// its array, then merges.
func TestDocBatchSlurm(t *testing.T) {
	t.Parallel()
	blocks, err := scripttest.DocBlocks()
	if err != nil {
		t.Fatal(err)
	}
	script := blocks["batch-slurm.sh"]
	m := regexp.MustCompile(`#SBATCH --array=0-(\d+)\n`).FindStringSubmatch(script)
	if m == nil || !strings.Contains(script, "/"+strconv.Itoa(atoi(m[1])+1)+"\n") {
		t.Fatalf("the array and the shard count disagree:\n%s", script)
	}
	dir, url, _ := docBatchSetup(t, 12)
	for i := 0; i <= atoi(m[1]); i++ {
		docShell(t, dir, []string{"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(i), "OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=" + docBatchKey}, []string{"sh", "-c"}, script)
	}
	docShell(t, dir, nil, []string{"sh", "-c"}, "agentloop batch merge out-* --input evals.jsonl -o results.jsonl")
	checkMerged(t, filepath.Join(dir, "results.jsonl"), 12)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func readDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("docs/batch.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// copyTree copies the files of a folder (an artifact's upload and
// download), hidden ones left out as upload-artifact does.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if strings.HasPrefix(d.Name(), ".") && rel != "." {
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

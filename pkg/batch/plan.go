package batch

// Task is an item to run, and its earlier result when it is retried.
type Task struct {
	Item Item
	// Prior is the result of the item's last run when --retry-failed runs
	// it again; nil otherwise.
	Prior *Result
}

// Plan is what a run of a batch does with each item of the input.
type Plan struct {
	// Tasks are the items to run, in input order: those without a
	// result (new, or interrupted before they finished), those whose run
	// could not be recorded, and the failed ones that are retried.
	Tasks []Task
	// Finished are the results already in OUTDIR of the items that are
	// not run again, in input order, Brief.
	Finished []Result
	// Retried counts the Tasks that retry a failed item.
	Retried int
	// OtherShards counts the items that belong to other shards.
	OtherShards int
	// Unknown are results in OUTDIR of ids the input no longer has.
	Unknown []Result
}

// PlanOptions choose what a run does.
type PlanOptions struct {
	Shard Shard
	// RetryFailed runs again the items whose result is Retryable.
	RetryFailed bool
}

// NewPlan decides, for each item, whether it runs. done are the results
// already written, the last of each id winning.
func NewPlan(items []Item, done []Result, o PlanOptions) Plan {
	latest := Latest(done)
	var p Plan
	inInput := make(map[string]bool, len(items))
	for _, it := range items {
		inInput[it.ID] = true
		if !o.Shard.Has(it.ID) {
			p.OtherShards++
			continue
		}
		r, ok := latest[it.ID]
		switch {
		case !ok || r.Unrecorded():
			// Not run yet, or its run could not be recorded: it has no
			// outcome to keep.
			p.Tasks = append(p.Tasks, Task{Item: it})
		case o.RetryFailed && r.Retryable():
			prior := r
			p.Tasks = append(p.Tasks, Task{Item: it, Prior: &prior})
			p.Retried++
		default:
			p.Finished = append(p.Finished, r.Brief())
		}
	}
	for _, r := range done {
		if !inInput[r.ID] {
			inInput[r.ID] = true // once
			p.Unknown = append(p.Unknown, latest[r.ID])
		}
	}
	return p
}

package batch

import (
	"context"
	"errors"
	"sync"
)

// DefaultJobs is how many items run at once unless -j says otherwise.
const DefaultJobs = 4

// Options say how Run runs the tasks.
type Options struct {
	// Jobs is how many items run at once; DefaultJobs when 0.
	Jobs int
	// Run runs one item to its end and says how it ended. A result that
	// is not Finished (an interrupted item) is not recorded: the next run
	// continues the item. Run is called from Jobs goroutines at once.
	Run func(ctx context.Context, t Task) Result
	// Record writes a finished result (ResultsFile.Append); it is called
	// from Jobs goroutines at once. An error stops the batch: the items
	// running are interrupted and nothing more starts.
	Record func(Result) error
	// OnStart and OnDone, when set, report progress; they are called one
	// at a time. recorded says whether the result was written.
	OnStart func(Task)
	OnDone  func(r Result, recorded bool)
}

// Report is what a Run did.
type Report struct {
	// Finished are the results recorded, in the order the items finished,
	// without their answers and metadata (Brief): those are in the results
	// file, and a batch of any size keeps only a little of each item.
	Finished []Result
	// Unfinished are the items that were interrupted, and NotStarted
	// counts those that never began: the batch was stopped.
	Unfinished []Result
	NotStarted int
	// Err is why the batch stopped early other than by ctx: a result that
	// could not be recorded.
	Err error
}

// errRecord is the cause the other items are interrupted with when a
// result could not be recorded.
var errRecord = errors.New("a result could not be recorded")

// Run runs the tasks, Jobs at a time, in order. It returns when every task
// has run, or when ctx ends or a result cannot be recorded: then no task
// starts, and those running end as Run makes them (interrupted, through
// the context they were given).
func Run(ctx context.Context, tasks []Task, o Options) Report {
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)

	var (
		mu      sync.Mutex // rep, started and the callbacks
		rep     Report
		started int
		wg      sync.WaitGroup
	)
	queue := make(chan Task)
	for range min(jobs, len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range queue {
				mu.Lock()
				if ctx.Err() != nil {
					mu.Unlock()
					continue
				}
				started++
				if o.OnStart != nil {
					o.OnStart(t)
				}
				mu.Unlock()
				res := o.Run(ctx, t)
				recorded := false
				var err error
				if res.Finished() {
					if err = o.Record(res); err == nil {
						recorded = true
					}
				}
				mu.Lock()
				switch {
				case recorded:
					rep.Finished = append(rep.Finished, res.Brief())
				default:
					rep.Unfinished = append(rep.Unfinished, res)
				}
				if err != nil && rep.Err == nil {
					rep.Err = err
					stop(errRecord)
				}
				if o.OnDone != nil {
					o.OnDone(res, recorded)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, t := range tasks {
		if ctx.Err() != nil {
			break
		}
		select {
		case queue <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	rep.NotStarted = len(tasks) - started
	return rep
}

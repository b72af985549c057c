// Package batch runs many prompts through the loop: it reads the input
// (ReadInput), decides what each item of a run does (NewPlan: run it,
// retry it, or keep its result; only the items of one Shard), runs the
// items a few at a time (Run), and keeps their results in OUTDIR (Dir,
// ResultsFile) so that a run stopped at any moment, kill -9 included,
// loses no finished item and the next run picks up where it stopped.
//
// The package does not run the loop itself: the caller's Options.Run does,
// for one item, and says how it ended. What it needs to continue an
// interrupted item from its transcript is here (StageOf, FromTranscript,
// SamePrompt); the loop's own resume does the rest.
//
// OUTDIR holds:
//
//	results.jsonl        one Result a line, appended as each item finishes
//	NAME.jsonl           the transcript of the item whose FileName is NAME
//	NAME~N.jsonl         the transcript of an earlier, interrupted attempt
//	.lock                held by the batch writing the folder
//
// Each line of results.jsonl is written in one write and synced before the
// next item's; an item's transcript is synced before its result line is
// written. A kill leaves at most a last line cut short, which the next run
// cuts off; an item whose transcript ended but whose line was not written
// has its result read back from the transcript.
package batch

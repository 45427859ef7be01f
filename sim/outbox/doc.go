// Package outbox runs the rating-outbox kind (issue 29): reviews created,
// edited and deleted, their changes delivered by an at-least-once outbox,
// late and sometimes twice, to consumers that keep each item's rating sum
// and count (the strategies.Aggregate family).
//
// The central type is the kind's runner, registered with the engine as
// "rating-outbox" when the package loads; package sim imports it for that.
// Its truth is the review table (strategies.ReviewLedger) built from the
// committed lifecycle (workload.Reviews); it scores each consumer's drift,
// its top-K places moved, and what it holds or reads, beside the plans.
//
// A run builds its designs afresh and feeds them from the engine's lanes;
// the runner itself holds no state across runs but the stream it drew.
//
// The scenario's keys are package scenarios' (ratings_outbox.go).
package outbox

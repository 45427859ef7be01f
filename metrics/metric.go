package metrics

import "slices"

// Metric is the name of a figure, measured or planned: "max_overestimate",
// "topk_recall". Every one is declared once, in metricnames.go.
type Metric string

var (
	// declared is every Metric, in the order metricnames.go declares them.
	declared []Metric
	// known holds each declared name once.
	known = map[Metric]bool{}
)

// declare enters name into the vocabulary and returns it. A name declared
// twice is a programming error: it panics when the package loads.
func declare(name string) Metric {
	m := Metric(name)
	if known[m] {
		panic("metrics: metric " + name + " declared twice")
	}
	known[m] = true
	declared = append(declared, m)
	return m
}

// All returns every declared Metric, in the order metricnames.go declares
// them.
func All() []Metric { return slices.Clone(declared) }

// Known reports whether name is a declared Metric.
func Known(name string) bool { return known[Metric(name)] }

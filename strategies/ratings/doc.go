// Package ratings holds the designs that rank items by their star ratings
// (seeds/000's ranking question): [NaiveAverage] ("naive-average", the
// trap one 5-star rating tops), [BayesianAverage] ("bayesian-average", C
// pseudo-ratings at a prior mean m) and [Wilson] ("wilson", the lower
// bound of the Wilson interval of the up votes).
//
// Each keeps per item the number of ratings and one more integer, and
// computes its score when asked: a score is its formula applied to the
// item's exact counts.
//
// Designs are not safe for concurrent use.
//
// The contract ([strategies.Rating]) is package strategies'.
package ratings

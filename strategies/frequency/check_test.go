package frequency

import "countsim/strategies/internal/designtest"

// checker is a design of this package that validates its internal
// invariants, as designtest.CheckInvariants asks.
type checker interface{ check() error }

func init() { designtest.RegisterChecker(checker.check) }

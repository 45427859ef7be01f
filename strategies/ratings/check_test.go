package ratings

import (
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

// checker is a design of this package that validates its internal
// invariants.
type checker interface{ check() error }

func init() {
	designtest.RegisterChecker(func(s strategies.Strategy) (bool, error) {
		c, ok := s.(checker)
		if !ok {
			return false, nil
		}
		return true, c.check()
	})
}

package sim

// The rating-outbox kind (issue 29) runs in a room of its own, sim/outbox,
// which registers it with the engine when it loads.
import _ "countsim/sim/outbox"

// Key placement: which slot and node hold a key, and the slot rule of a
// multi-key command.

package cluster

import (
	"fmt"
	"strings"

	"countsim/keyslot"
	"countsim/strategies"
	"countsim/workload"
)

// Placement is how a cluster places keys on its nodes.
type Placement uint8

const (
	// Slots places keys as Redis Cluster does: a key's slot is CRC16 of its
	// name, or of its hash tag, over 16,384 slots (keyslot.Of), its name
	// the one the real store sends (strategies.AppendKeyName), and node i
	// holds the i-th range of slots that redis-cli --cluster create gives
	// Nodes masters (keyslot.Ranges). A design's keys so land on the nodes
	// a real cluster made by redis-cli puts them on, node for node. A
	// multi-key command whose keys are in different slots is refused
	// (strategies.ErrCrossSlot), even on one node, as Redis Cluster
	// refuses it.
	Slots Placement = iota
	// Modulo places a key on node Mix64(key ⊕ SplitMix64(Seed)) mod Nodes
	// (of its Tag in place of the key where it has one): a hash of the
	// number, not of the name, standing for any store sharded by hash. A
	// multi-key command whose keys are on different nodes is refused with
	// the same error (a node stands for a slot); on one node, none is: a
	// single Redis server.
	Modulo
	placements // the number of placements
)

var placementNames = []string{"slots", "modulo"}

// String returns "slots" or "modulo".
func (p Placement) String() string { return strategies.EnumString(p, "placement", placementNames) }

// Names lists the placements' names, as the scenario's cluster.placement
// takes them.
func (Placement) Names() []string { return append([]string(nil), placementNames...) }

// UnmarshalText reads a placement by name.
func (p *Placement) UnmarshalText(text []byte) error {
	return strategies.UnmarshalEnum(p, "placement", placementNames, text)
}

func placementList() string { return strings.Join(placementNames, ", ") }

// place returns the slot and node of key, first sent with tag. With
// Modulo the slot is the node. It allocates nothing: the name is built on
// the stack.
func (c *Cluster) place(key, tag uint64) (slot, node int) {
	if c.cfg.Placement == Modulo {
		if tag != 0 {
			key = tag
		}
		node = int(workload.Mix64(key^c.nodeSeed) % uint64(c.cfg.Nodes))
		return node, node
	}
	var buf [strategies.KeyNameBytes]byte
	slot = keyslot.Of(strategies.AppendKeyName(buf[:0], key, tag))
	return slot, keyslot.Owner(c.ranges, slot)
}

// NodeOf returns the node that holds key, sent with tag (0: none): see
// [Placement].
func (c *Cluster) NodeOf(key, tag uint64) int {
	if i, ok := c.index.find(key); ok {
		return int(c.keys[i].node)
	}
	_, node := c.place(key, tag)
	return node
}

// SlotOf returns the hash slot of key, sent with tag, with Slots; its
// node with Modulo.
func (c *Cluster) SlotOf(key, tag uint64) int {
	if i, ok := c.index.find(key); ok {
		return int(c.keys[i].slot)
	}
	slot, _ := c.place(key, tag)
	return slot
}

// Ranges returns each node's slots with Slots (node i's at index i), nil
// with Modulo.
func (c *Cluster) Ranges() []keyslot.Range { return append([]keyslot.Range(nil), c.ranges...) }

// crossSlot reports whether the multi-key command op, whose first key is
// k, names in args a key of another slot (another node, with Modulo); if
// so it records the refusal, as Redis Cluster answers it.
func (c *Cluster) crossSlot(op *strategies.StoreOp, k *clusterKey, args []strategies.StoreOp) bool {
	for j := range args {
		if c.SlotOf(args[j].Key, args[j].Tag) == int(k.slot) {
			continue
		}
		c.crossSlots++
		if c.refused == nil {
			c.refused = fmt.Errorf("%s: %w", commandName(op.Kind), strategies.ErrCrossSlot)
		}
		return true
	}
	return false
}

// commandName is the Redis command of a multi-key op.
func commandName(k strategies.StoreOpKind) string {
	switch k {
	case strategies.PFCount:
		return "PFCOUNT"
	case strategies.PFMerge:
		return "PFMERGE"
	case strategies.ZUnionStore:
		return "ZUNIONSTORE"
	}
	return fmt.Sprintf("op kind %d", k)
}

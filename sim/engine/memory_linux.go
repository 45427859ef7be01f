package engine

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// MachineMemory is the memory this machine has available for a run, in
// bytes: MemAvailable of /proc/meminfo (free memory and what the kernel can
// reclaim), or 0 when it cannot be read. A variable, for the tests.
var MachineMemory = func() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

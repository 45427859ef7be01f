package workload_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"countsim/workload"
)

// A team's own log, read with its key strings hashed, its times in Unix
// milliseconds, a tolerance for lines slightly out of order and room for
// one bad line. Strings turns the hashed keys back into their text.
func ExampleOpenLog() {
	dir, err := os.MkdirTemp("", "log")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "searches.csv")
	os.WriteFile(path, []byte(`ts,phrase,user
1767225600000,ipl final,u1
1767225600250,ipl final,u2
1767225600200,"weather, delhi",u1
1767225600300,ipl final
1767225601000,cricket score,u3
`), 0o644)

	r, err := workload.OpenLog(workload.LogConfig{
		Path: path, Format: "csv", Key: "phrase", Time: "ts", Actor: "user",
		Tolerance: 100_000_000, // 100 ms
		SkipBad:   1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	var keys []uint64
	buf := make([]workload.Event, 0, 1024)
	for {
		batch, err := r.Read(buf[:0])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, e := range batch {
			fmt.Printf("id %d at %4d ms: key %#016x\n", e.ID, e.At/1e6, e.Key)
			keys = append(keys, e.Key)
		}
	}
	bad := r.SkippedErrors()[0]
	fmt.Printf("%d events, %d reordered, %d skipped: line %d: %s\n", r.Events(), r.Reordered(), r.Skipped(), bad.Line, bad.Msg)
	names, err := r.Strings(keys)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range keys[2:] {
		fmt.Printf("%#016x is %q\n", k, names[k])
	}
	// Output:
	// id 1 at    0 ms: key 0xd0fd1a2a355f6685
	// id 2 at  250 ms: key 0xd0fd1a2a355f6685
	// id 3 at  250 ms: key 0xb394d91cda4c95f8
	// id 4 at 1000 ms: key 0x33064cec75d00bb8
	// 4 events, 1 reordered, 1 skipped: line 5: 2 fields, the header has 3
	// 0xb394d91cda4c95f8 is "weather, delhi"
	// 0x33064cec75d00bb8 is "cricket score"
}

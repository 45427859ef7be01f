package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// randomKeyName draws a key name from bytes that CSV and JSON treat
// specially, and from all of UTF-8 and beyond it.
func randomKeyName(rng *rand.Rand) string {
	const special = ",\"\r\n\t\\/ \x00\x1fa1é✓🏏\xff\xc3"
	var b strings.Builder
	for range rng.IntN(12) {
		if rng.IntN(3) == 0 {
			b.WriteRune(rune(rng.IntN(0x10ffff)))
		} else {
			s := []rune(special)
			if rng.IntN(4) == 0 {
				b.WriteByte(special[rng.IntN(len(special))]) // may split a rune: bad UTF-8
			} else {
				b.WriteRune(s[rng.IntN(len(s))])
			}
		}
	}
	return b.String()
}

// TestLogWriterCSV: encoding/csv reads every line the writer wrote back
// into its seven fields, the key name exactly (but for "\r\n", which
// encoding/csv reads as "\n").
func TestLogWriterCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	evs := logTestEvents(9, 2000)
	names := map[uint64]string{}
	for _, e := range evs {
		names[e.Key] = randomKeyName(rng)
	}
	var out bytes.Buffer
	w, err := NewLogWriter(&out, "csv", func(k uint64) string { return names[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(evs); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(&out)
	header, err := cr.Read()
	if err != nil || strings.Join(header, ",") != "time,key,key_id,actor,actor_id,id,delta,op" {
		t.Fatalf("header %q, %v", header, err)
	}
	for i, e := range evs {
		rec, err := cr.Read()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		want := []string{
			LogTimeBase().Add(time.Duration(e.At)).Format("2006-01-02T15:04:05.000000000Z07:00"),
			strings.ReplaceAll(names[e.Key], "\r\n", "\n"),
			fmt.Sprint(e.Key), fmt.Sprint(e.Actor), fmt.Sprint(e.Actor), fmt.Sprint(e.ID), fmt.Sprint(e.Delta), e.Op.String(),
		}
		if fmt.Sprintf("%q", rec) != fmt.Sprintf("%q", want) {
			t.Fatalf("record %d: got %q, want %q", i, rec, want)
		}
	}
	if _, err := cr.Read(); err != io.EOF {
		t.Fatalf("after the last record: %v, want EOF", err)
	}
}

// TestLogWriterNDJSON: every line is a JSON object that encoding/json
// decodes into the event's values, the ids as decimal strings, the key name
// as written where it is UTF-8 (else with U+FFFD, as encoding/json would
// write it).
func TestLogWriterNDJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	evs := logTestEvents(12, 2000)
	names := map[uint64]string{}
	for _, e := range evs {
		names[e.Key] = randomKeyName(rng)
	}
	var out bytes.Buffer
	w, err := NewLogWriter(&out, "ndjson", func(k uint64) string { return names[k] })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(evs); i += 7 {
		if err := w.Write(evs[i:min(i+7, len(evs))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	for i, e := range evs {
		if !sc.Scan() {
			t.Fatalf("line %d missing", i+1)
		}
		var got struct {
			Time  time.Time `json:"time"`
			Key   string    `json:"key"`
			KeyID uint64    `json:"key_id,string"`
			Actor uint64    `json:"actor,string"`
			ID    uint64    `json:"id,string"`
			Delta int64     `json:"delta"`
			Op    string    `json:"op"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d %q: %v", i+1, sc.Text(), err)
		}
		wantName, _ := json.Marshal(names[e.Key]) // encoding/json's own escaping of the name
		var name string
		json.Unmarshal(wantName, &name)
		if !got.Time.Equal(LogTimeBase().Add(time.Duration(e.At))) || got.Key != name || got.KeyID != e.Key ||
			got.Actor != e.Actor || got.ID != e.ID || got.Delta != e.Delta || got.Op != e.Op.String() {
			t.Fatalf("line %d %q: got %+v, want %+v named %q", i+1, sc.Text(), got, e, name)
		}
		if utf8.ValidString(names[e.Key]) && got.Key != names[e.Key] {
			t.Fatalf("line %d: key %q, want %q", i+1, got.Key, names[e.Key])
		}
	}
	if sc.Scan() {
		t.Fatalf("a line after the last event: %q", sc.Text())
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n += len(p); f.n > 100_000 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestLogWriterErrors: an unknown op and a failing writer are errors that
// stay.
func TestLogWriterErrors(t *testing.T) {
	w, err := NewLogWriter(io.Discard, "csv", logTestKeyName)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]Event{{Op: Set + 1, ID: 77}}); err == nil || !strings.Contains(err.Error(), "id 77 has op 3") {
		t.Fatalf("an unknown op: got %v", err)
	}
	if err := w.Flush(); err == nil {
		t.Fatal("Flush after an error: no error")
	}
	if _, err := NewLogWriter(io.Discard, "csv", nil); err == nil {
		t.Fatal("no keyName: no error")
	}
	w, _ = NewLogWriter(&failWriter{}, "ndjson", logTestKeyName)
	evs := logTestEvents(13, 5000)
	err = w.Write(evs)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("a failing writer: got %v", err)
	}
	if err2 := w.Write(evs[:1]); err2 != err {
		t.Fatalf("Write after the error: %v, want it again", err2)
	}
}

// TestLogWriterActorNames: with NameActors the actor column holds each
// actor's name and actor_id its id, in both formats: read back by
// actor_id the events are the very ones written, by actor their Actor is
// the name's hash.
func TestLogWriterActorNames(t *testing.T) {
	evs := logTestEvents(13, 500)
	name := func(a uint64) string { return "viewer, \"" + strconv.FormatUint(a%97, 10) + "\"" }
	for _, format := range []string{"csv", "ndjson"} {
		path := filepath.Join(t.TempDir(), "a."+format)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewLogWriter(f, format, logTestKeyName)
		if err != nil {
			t.Fatal(err)
		}
		w.NameActors(name)
		if err := w.Write(evs); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		byID, _, err := readTestLog(t, ReplayConfig(path, format), 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg := ReplayConfig(path, format)
		cfg.ActorID, cfg.Actor = "", "actor"
		byName, _, err := readTestLog(t, cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(byID) != len(evs) || len(byName) != len(evs) {
			t.Fatalf("%s: read %d and %d of %d events", format, len(byID), len(byName), len(evs))
		}
		for i, e := range evs {
			if byID[i].Actor != e.Actor || byName[i].Actor != xxhash.Sum64String(name(e.Actor)) {
				t.Fatalf("%s: event %d: actor %d by id and %d by name, want %d and the hash of %q", format, i, byID[i].Actor, byName[i].Actor, e.Actor, name(e.Actor))
			}
		}
	}
}

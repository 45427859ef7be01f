package strategies

import (
	"strings"
	"testing"
)

// Each tie policy reads its name and writes it back; a name not of the
// set is refused naming the allowed ones; a value with no name writes an
// error.
func TestTiesText(t *testing.T) {
	for _, want := range AllTies {
		text, err := want.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got Ties
		if err := got.UnmarshalText(text); err != nil || got != want || got.String() != string(text) {
			t.Errorf("%s: read back %v, %v", text, got, err)
		}
	}
	got := TiesDense
	if err := got.UnmarshalText([]byte("olympic")); err == nil || got != TiesDense ||
		err.Error() != `unknown tie policy "olympic" (allowed: competition, ordinal, dense)` {
		t.Errorf("olympic: %v, left %v", err, got)
	}
	if _, err := Ties(3).MarshalText(); err == nil || !strings.Contains(err.Error(), "3 has no name") {
		t.Errorf("Ties(3): %v", err)
	}
	if s := Ties(9).String(); s != "ties(9)" {
		t.Errorf("Ties(9).String() = %q", s)
	}
	names := Ties(0).Names()
	names[0] = "changed"
	if TiesCompetition.String() != "competition" {
		t.Error("Names returned the list the type keeps")
	}
}

// FuzzUnmarshalEnum: a text is read as the value of its name or refused,
// and a value read writes its name back.
func FuzzUnmarshalEnum(f *testing.F) {
	for _, s := range []string{"competition", "dense", "", "Dense", "ordinal\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v Ties
		if err := v.UnmarshalText([]byte(s)); err != nil {
			if v != 0 {
				t.Fatalf("%q refused, yet set %d", s, v)
			}
			return
		}
		if back, err := v.MarshalText(); err != nil || string(back) != s {
			t.Fatalf("%q read as %d, written back as %q, %v", s, v, back, err)
		}
	})
}

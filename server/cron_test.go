package server

import (
	"testing"
	"time"
)

func TestParseCron(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04 Mon", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		expr string
		when string
		want bool
	}{
		{"0 3 * * *", "2026-11-30 03:00 Mon", true},
		{"0 3 * * *", "2026-11-30 03:01 Mon", false},
		{"*/15 * * * *", "2026-11-30 10:45 Mon", true},
		{"*/15 * * * *", "2026-11-30 10:44 Mon", false},
		{"30 1-5 * * 0,6", "2026-11-29 04:30 Sun", true},
		{"30 1-5 * * 0,6", "2026-11-30 04:30 Mon", false},
		{"0 0 1 1 *", "2027-01-01 00:00 Fri", true},
	}
	for _, c := range cases {
		spec, err := parseCron(c.expr)
		if err != nil {
			t.Fatalf("%q: %v", c.expr, err)
		}
		if got := spec.matches(at(c.when)); got != c.want {
			t.Errorf("%q at %s = %v, want %v", c.expr, c.when, got, c.want)
		}
	}
	for _, bad := range []string{"0 3 * *", "60 * * * *", "* 24 * * *", "*/0 * * * *", "a * * * *", "5-1 * * * *"} {
		if _, err := parseCron(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if spec, err := parseCron(""); spec != nil || err != nil {
		t.Errorf("empty expression: %v %v", spec, err)
	}
}

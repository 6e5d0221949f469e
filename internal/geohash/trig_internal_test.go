package geohash

import (
	"testing"
)

// TestTrigCorrectlyRounded checks values whose correctly rounded results are known (computed
// at 200 bits) and that Go's math package misses.
func TestTrigCorrectlyRounded(t *testing.T) {
	cases := []struct {
		f    func(float64) float64
		x, y float64
	}{
		{asin, 0.03342848906057271, 0.03343471804823518},
		{asin, 0.8306623959779516, 0.9802963290314072},
		{sin, 2.9345342028158123, 0.2055820760436645},
		{cos, -1.363208714435819, 0.2060999058656395},
		{cos, degRad(37), 0.7986355100472928},
	}
	for i, c := range cases {
		if got := c.f(c.x); got != c.y {
			t.Errorf("%d: f(%v) = %v, want %v", i, c.x, got, c.y)
		}
	}
}

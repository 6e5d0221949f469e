package geohash

import (
	"math"
	"testing"
)

// Known values from redis-server 7.0.15: GEOADD Sicily 13.361389 38.115556 Palermo
// 15.087269 37.502669 Catania; ZSCORE, GEOPOS, GEOHASH and GEODIST.
func TestRedisKnownValues(t *testing.T) {
	for _, tc := range []struct {
		lon, lat float64
		score    uint64
		plon     float64
		plat     float64
		hash     string
	}{
		{13.361389, 38.115556, 3479099956230698, 13.36138933897018433, 38.11555639549629859, "sqc8b49rny0"},
		{15.087269, 37.502669, 3479447370796909, 15.08726745843887329, 37.50266842333162032, "sqdtr74hyu0"},
	} {
		score, ok := Score(tc.lon, tc.lat)
		if !ok || score != tc.score {
			t.Fatalf("Score(%v,%v) = %d, %v; want %d", tc.lon, tc.lat, score, ok, tc.score)
		}
		lon, lat, ok := DecodeScore(float64(score))
		if !ok || lon != tc.plon || lat != tc.plat {
			t.Errorf("DecodeScore(%d) = %v,%v; want %v,%v", score, lon, lat, tc.plon, tc.plat)
		}
		if s, _ := String(float64(score)); s != tc.hash {
			t.Errorf("String(%d) = %s, want %s", score, s, tc.hash)
		}
	}
	d := Distance(13.36138933897018433, 38.11555639549629859, 15.08726745843887329, 37.50266842333162032)
	if math.Abs(d/1000-166.2742) > 0.00005 {
		t.Errorf("Palermo-Catania %v km, want 166.2742", d/1000)
	}
}

func TestEncodeLimits(t *testing.T) {
	for _, p := range [][2]float64{{181, 0}, {-180.1, 0}, {0, 85.06}, {0, -85.06}} {
		if _, ok := Score(p[0], p[1]); ok {
			t.Errorf("Score(%v) accepted", p)
		}
	}
	if _, _, ok := DecodeScore(0); !ok {
		t.Error("score 0 (the south-west corner) does not decode")
	}
}

func TestNeighborsRoundTrip(t *testing.T) {
	h, _ := EncodeWGS84(2.35, 48.85, 10)
	nb := NeighborsOf(h)
	if e := NeighborsOf(nb.East); e.West != h {
		t.Errorf("west of east = %v, want %v", e.West, h)
	}
	if n := NeighborsOf(nb.North); n.South != h {
		t.Errorf("south of north = %v, want %v", n.South, h)
	}
	a, _ := Decode(World[0], World[1], h)
	e, _ := Decode(World[0], World[1], nb.East)
	if e.Lon.Min != a.Lon.Max {
		t.Errorf("east cell starts at %v, cell ends at %v", e.Lon.Min, a.Lon.Max)
	}
}

func TestAreasCoverShape(t *testing.T) {
	s := Shape{Lon: 2.35, Lat: 48.85, Radius: 50, Conversion: 1000}
	areas := s.Areas()
	if areas[0].Zero() || areas[0].Step != 8 { // 50 km doubled 9 times passes 20037 km: step 10-2
		t.Fatalf("centre cell %+v, want step 8", areas[0])
	}
	if _, in := s.Within(2.35, 48.85); !in {
		t.Error("centre outside its own circle")
	}
	if _, in := s.Within(3.5, 48.85); in {
		t.Error("a point 84 km east inside a 50 km circle")
	}
	box := Shape{Lon: 0, Lat: 0, Box: true, Width: 200, Height: 100, Conversion: 1000}
	if _, in := box.Within(0.8, 0); !in {
		t.Error("a point 89 km east outside a 200 km wide box")
	}
	if _, in := box.Within(0, 0.5); in {
		t.Error("a point 56 km north inside a 100 km high box")
	}
}

// TestAreasExtremeShapes runs the cell choice on degenerate and huge areas: one cell at step 1
// or the finest step, never a panic.
func TestAreasExtremeShapes(t *testing.T) {
	for _, s := range []Shape{
		{Lon: 0, Lat: 0, Radius: math.Inf(1), Conversion: 1},
		{Lon: 180, Lat: 85.05112878, Radius: 1e300, Conversion: 1609.34},
		{Lon: -180, Lat: -85.05112878, Box: true, Width: 1e308, Height: 1e308, Conversion: 1000},
		{Lon: 10, Lat: 10, Radius: 0, Conversion: 1},
		{Lon: 10, Lat: 10, Radius: 1e-300, Conversion: 0.3048},
	} {
		areas := s.Areas()
		if areas[0].Zero() {
			t.Errorf("%+v: no centre cell", s)
		}
		if st := areas[0].Step; st != 1 && st != 26 && st != 25 {
			t.Errorf("%+v: step %d", s, st)
		}
	}
}

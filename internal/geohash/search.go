package geohash

import "math"

// Shape is a search area: a circle of Radius or a box of Width by Height around a centre,
// in units of Conversion meters.
type Shape struct {
	Lon, Lat      float64
	Box           bool
	Radius        float64
	Width, Height float64
	Conversion    float64
	bounds        [4]float64 // min lon, min lat, max lon, max lat
}

// Within reports whether a member's position lies in s and its distance from s's centre in
// meters.
func (s *Shape) Within(lon, lat float64) (float64, bool) {
	if !s.Box {
		d := Distance(s.Lon, s.Lat, lon, lat)
		return d, d <= s.Radius*s.Conversion
	}
	w, h := s.Width*s.Conversion, s.Height*s.Conversion
	if LatDistance(s.Lat, lat) > h/2 {
		return 0, false
	}
	if Distance(lon, lat, s.Lon, lat) > w/2 { // along the member's parallel
		return 0, false
	}
	return Distance(s.Lon, s.Lat, lon, lat), true
}

// estimateSteps returns the hash step whose cells are about as large as a range of meters
// at latitude lat.
func estimateSteps(meters, lat float64) uint8 {
	if meters == 0 {
		return 26
	}
	step := 1
	for meters < mercatorMax {
		meters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), 26))
}

// boundingBox computes the box around s that a search must cover.
func (s *Shape) boundingBox() {
	height, width := s.Conversion*s.Radius, s.Conversion*s.Radius
	if s.Box {
		height, width = s.Conversion*(s.Height/2), s.Conversion*(s.Width/2)
	}
	latDelta := radDeg(height / EarthRadius)
	lonDeltaTop := radDeg(width / EarthRadius / cos(degRad(s.Lat+latDelta)))
	lonDeltaBottom := radDeg(width / EarthRadius / cos(degRad(s.Lat-latDelta)))
	if s.Lat < 0 {
		s.bounds[0], s.bounds[2] = s.Lon-lonDeltaBottom, s.Lon+lonDeltaBottom
	} else {
		s.bounds[0], s.bounds[2] = s.Lon-lonDeltaTop, s.Lon+lonDeltaTop
	}
	s.bounds[1], s.bounds[3] = s.Lat-latDelta, s.Lat+latDelta
}

// Areas returns the cells a search of s scans, in the order they are scanned: the centre's
// cell, then north, south, east, west, north-east, north-west, south-east and south-west.
// Cells that cannot hold a match are zero.
func (s *Shape) Areas() [9]Bits {
	s.boundingBox()
	minLon, minLat, maxLon, maxLat := s.bounds[0], s.bounds[1], s.bounds[2], s.bounds[3]
	radius := s.Radius
	if s.Box {
		radius = math.Sqrt(float64((s.Width/2)*(s.Width/2)) + float64((s.Height/2)*(s.Height/2)))
	}
	radius *= s.Conversion
	steps := estimateSteps(radius, s.Lat)
	lonR, latR := World[0], World[1]
	hash, _ := Encode(lonR, latR, s.Lon, s.Lat, steps)
	nb := NeighborsOf(hash)
	area, _ := Decode(lonR, latR, hash)

	north, _ := Decode(lonR, latR, nb.North)
	south, _ := Decode(lonR, latR, nb.South)
	east, _ := Decode(lonR, latR, nb.East)
	west, _ := Decode(lonR, latR, nb.West)
	decrease := north.Lat.Max < maxLat || south.Lat.Min > minLat ||
		east.Lon.Max < maxLon || west.Lon.Min > minLon
	if steps > 1 && decrease {
		steps--
		hash, _ = Encode(lonR, latR, s.Lon, s.Lat, steps)
		nb = NeighborsOf(hash)
		area, _ = Decode(lonR, latR, hash)
	}
	if steps >= 2 {
		if area.Lat.Min < minLat {
			nb.South, nb.SouthWest, nb.SouthEast = Bits{}, Bits{}, Bits{}
		}
		if area.Lat.Max > maxLat {
			nb.North, nb.NorthEast, nb.NorthWest = Bits{}, Bits{}, Bits{}
		}
		if area.Lon.Min < minLon {
			nb.West, nb.SouthWest, nb.NorthWest = Bits{}, Bits{}, Bits{}
		}
		if area.Lon.Max > maxLon {
			nb.East, nb.SouthEast, nb.NorthEast = Bits{}, Bits{}, Bits{}
		}
	}
	return [9]Bits{hash, nb.North, nb.South, nb.East, nb.West, nb.NorthEast, nb.NorthWest, nb.SouthEast, nb.SouthWest}
}

// ScoreRange returns the scores of the members inside cell h: from min, included, to max,
// excluded.
func ScoreRange(h Bits) (min, max uint64) {
	min = Align52(h)
	h.Bits++
	return min, Align52(h)
}

const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// String returns the standard 11-character geohash of a geo score's position, as GEOHASH
// answers it, and false when the score does not decode.
func String(score float64) (string, bool) {
	lon, lat, ok := DecodeScore(score)
	if !ok {
		return "", false
	}
	h, _ := Encode(Range{-180, 180}, Range{-90, 90}, lon, lat, 26)
	var buf [11]byte
	for i := range buf {
		idx := 0
		if i < 10 {
			idx = int(h.Bits>>(52-(uint(i)+1)*5)) & 0x1f
		}
		buf[i] = alphabet[idx]
	}
	return string(buf[:]), true
}

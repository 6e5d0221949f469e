package geohash

import "math"

// Limits of the coordinates a geo set holds.
const (
	LonMin  = -180.0
	LonMax  = 180.0
	LatMin  = -85.05112878
	LatMax  = 85.05112878
	StepMax = 26 // 26 bits of each coordinate: a 52-bit score

	// EarthRadius is the sphere's radius in meters that distances are measured on.
	EarthRadius = 6372797.560856

	mercatorMax = 20037726.37
)

// degToRad is pi/180 computed in float64 arithmetic (a constant expression would be rounded
// once from the exact quotient, one unit in the last place away).
var degToRad = float64(math.Pi) / float64(180)

// Bits is a geohash of Step bits per coordinate.
type Bits struct {
	Bits uint64
	Step uint8
}

// Zero reports whether h is the empty hash (a neighbour dropped from a search).
func (h Bits) Zero() bool { return h.Bits == 0 && h.Step == 0 }

// Range is an interval of one coordinate.
type Range struct{ Min, Max float64 }

func (r Range) zero() bool { return r.Min == 0 && r.Max == 0 }

// Area is the cell a hash stands for.
type Area struct {
	Hash     Bits
	Lon, Lat Range
}

// World is the longitude and latitude ranges of geo scores.
var World = [2]Range{{LonMin, LonMax}, {LatMin, LatMax}}

func interleave(xlo, ylo uint32) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF}
	s := [...]uint{1, 2, 4, 8, 16}
	x, y := uint64(xlo), uint64(ylo)
	for i := 4; i >= 0; i-- {
		x = (x | x<<s[i]) & b[i]
		y = (y | y<<s[i]) & b[i]
	}
	return x | y<<1
}

func deinterleave(v uint64) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF}
	s := [...]uint{0, 1, 2, 4, 8, 16}
	x, y := v, v>>1
	for i := range b {
		x = (x | x>>s[i]) & b[i]
		y = (y | y>>s[i]) & b[i]
	}
	return x | y<<32
}

// Encode hashes a position over the given ranges with step bits per coordinate. It fails
// for a step outside 1..32 or a position outside the geo limits or the ranges.
func Encode(lonR, latR Range, lon, lat float64, step uint8) (Bits, bool) {
	if step > 32 || step == 0 || latR.zero() || lonR.zero() {
		return Bits{}, false
	}
	if lon > LonMax || lon < LonMin || lat > LatMax || lat < LatMin {
		return Bits{}, false
	}
	if lat < latR.Min || lat > latR.Max || lon < lonR.Min || lon > lonR.Max {
		return Bits{Step: step}, false
	}
	latOff := (lat - latR.Min) / (latR.Max - latR.Min)
	lonOff := (lon - lonR.Min) / (lonR.Max - lonR.Min)
	latOff *= float64(uint64(1) << step)
	lonOff *= float64(uint64(1) << step)
	return Bits{Bits: interleave(toUint32(latOff), toUint32(lonOff)), Step: step}, true
}

// toUint32 converts as C's conversion of a double to uint32_t does for the values Encode
// produces (0 up to 2^32).
func toUint32(f float64) uint32 { return uint32(uint64(f)) }

// EncodeWGS84 hashes a position over the geo ranges.
func EncodeWGS84(lon, lat float64, step uint8) (Bits, bool) {
	return Encode(World[0], World[1], lon, lat, step)
}

// Decode returns the cell of h over the given ranges.
func Decode(lonR, latR Range, h Bits) (Area, bool) {
	if h.Zero() || latR.zero() || lonR.zero() {
		return Area{}, false
	}
	sep := deinterleave(h.Bits)
	latScale := latR.Max - latR.Min
	lonScale := lonR.Max - lonR.Min
	ilat := uint32(sep)
	ilon := uint32(sep >> 32)
	div := float64(uint64(1) << h.Step)
	a := Area{Hash: h}
	a.Lat.Min = latR.Min + float64(float64(ilat)*1.0/div)*latScale
	a.Lat.Max = latR.Min + float64((float64(ilat)+1)*1.0/div)*latScale
	a.Lon.Min = lonR.Min + float64(float64(ilon)*1.0/div)*lonScale
	a.Lon.Max = lonR.Min + float64((float64(ilon)+1)*1.0/div)*lonScale
	return a, true
}

// Center returns the centre of a cell, clamped to the geo limits.
func (a Area) Center() (lon, lat float64) {
	lon = min(max((a.Lon.Min+a.Lon.Max)/2, LonMin), LonMax)
	lat = min(max((a.Lat.Min+a.Lat.Max)/2, LatMin), LatMax)
	return lon, lat
}

// DecodeScore returns the position a geo member's score stands for.
func DecodeScore(score float64) (lon, lat float64, ok bool) {
	a, ok := Decode(World[0], World[1], Bits{Bits: uint64(score), Step: StepMax})
	if !ok {
		return 0, 0, false
	}
	lon, lat = a.Center()
	return lon, lat, true
}

// Align52 returns h's bits shifted to the top of a 52-bit score.
func Align52(h Bits) uint64 { return h.Bits << (52 - uint(h.Step)*2) }

// Score returns the sorted-set score of a position: its 52-bit hash.
func Score(lon, lat float64) (uint64, bool) {
	h, ok := EncodeWGS84(lon, lat, StepMax)
	return Align52(h), ok
}

func moveX(h *Bits, d int) {
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - uint(h.Step)*2)
	if d > 0 {
		x += zz + 1
	} else {
		x |= zz
		x -= zz + 1
	}
	x &= 0xaaaaaaaaaaaaaaaa >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

func moveY(h *Bits, d int) {
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.Step)*2)
	if d > 0 {
		y += zz + 1
	} else {
		y |= zz
		y -= zz + 1
	}
	y &= 0x5555555555555555 >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

// Neighbors are the eight cells around one.
type Neighbors struct {
	North, South, East, West                   Bits
	NorthEast, NorthWest, SouthEast, SouthWest Bits
}

// neighbor returns h moved dx cells east and dy cells north.
func neighbor(h Bits, dx, dy int) Bits {
	if dx != 0 {
		moveX(&h, dx)
	}
	if dy != 0 {
		moveY(&h, dy)
	}
	return h
}

// NeighborsOf returns the cells around h.
func NeighborsOf(h Bits) Neighbors {
	return Neighbors{
		North: neighbor(h, 0, 1), South: neighbor(h, 0, -1),
		East: neighbor(h, 1, 0), West: neighbor(h, -1, 0),
		NorthEast: neighbor(h, 1, 1), NorthWest: neighbor(h, -1, 1),
		SouthEast: neighbor(h, 1, -1), SouthWest: neighbor(h, -1, -1),
	}
}

func degRad(a float64) float64 { return a * degToRad }
func radDeg(a float64) float64 { return a / degToRad }

// LatDistance returns the distance in meters between two latitudes on a meridian.
func LatDistance(lat1, lat2 float64) float64 {
	return EarthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// Distance returns the haversine distance in meters between two positions.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r, lon2r := degRad(lon1), degRad(lon2)
	v := sin((lon2r - lon1r) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r, lat2r := degRad(lat1), degRad(lat2)
	u := sin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(cos(lat1r)*cos(lat2r))*v)*v)
	return 2.0 * EarthRadius * asin(math.Sqrt(a))
}

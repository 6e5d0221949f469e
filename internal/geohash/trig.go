package geohash

import "math"

// Sines, cosines and arc sines rounded correctly to float64, computed in double-double
// arithmetic (about 106 bits). The C library of the platforms Redis runs on rounds these
// functions correctly for practically every argument; Go's math package can be a few units
// in the last place away, which shows in the distances that STOREDIST keeps at full
// precision. The arguments here are angles of a few radians at most.

// dd is an unevaluated sum hi+lo with |lo| at most half a unit in the last place of hi.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) (p, e float64) {
	p = a * b
	return p, math.FMA(a, b, -p)
}

func (x dd) add(y dd) dd {
	s, e := twoSum(x.hi, y.hi)
	t, f := twoSum(x.lo, y.lo)
	e += t
	r := quickTwoSum(s, e)
	return quickTwoSum(r.hi, r.lo+f)
}

func (x dd) neg() dd { return dd{-x.hi, -x.lo} }

func (x dd) mul(y dd) dd {
	p, e := twoProd(x.hi, y.hi)
	e += x.hi*y.lo + x.lo*y.hi
	return quickTwoSum(p, e)
}

func (x dd) mulF(f float64) dd {
	p, e := twoProd(x.hi, f)
	e += x.lo * f
	return quickTwoSum(p, e)
}

func (x dd) divF(d float64) dd {
	q1 := x.hi / d
	r := x.add(dd{q1, 0}.mulF(d).neg())
	q2 := r.hi / d
	r = r.add(dd{q2, 0}.mulF(d).neg())
	q3 := r.hi / d
	return quickTwoSum(q1, q2).add(dd{q3, 0})
}

const trigTerms = 16

// invFact[k] is 1/k! for k up to 2*trigTerms+1.
var invFact = func() (f [2*trigTerms + 2]dd) {
	f[0] = dd{1, 0}
	for k := 1; k < len(f); k++ {
		f[k] = f[k-1].divF(float64(k))
	}
	return f
}()

// halfPi is pi/2 as a double-double.
var halfPi = dd{1.5707963267948966, 6.123233995736766e-17}

// sinCosDD returns sin x and cos x for |x| up to a few radians.
func sinCosDD(x dd) (s, c dd) {
	k := math.Round(x.hi / halfPi.hi)
	r := x.add(halfPi.mulF(k).neg())
	r2 := r.mul(r)
	// Horner's scheme over r^2 for sin(r)/r and cos(r).
	sp, cp := invFact[2*trigTerms+1], invFact[2*trigTerms]
	for i := trigTerms - 1; i >= 0; i-- {
		sp = sp.mul(r2).neg().add(invFact[2*i+1])
		cp = cp.mul(r2).neg().add(invFact[2*i])
	}
	sn, cs := sp.mul(r), cp
	switch int64(k) & 3 {
	case 0:
		return sn, cs
	case 1:
		return cs, sn.neg()
	case 2:
		return sn.neg(), cs.neg()
	default:
		return cs.neg(), sn
	}
}

// maxTrigArg bounds the arguments sinCosDD reduces accurately; larger ones (from absurd radii,
// whose search covers the world anyway) go to the math package.
const maxTrigArg = 16

func sin(x float64) float64 {
	if !(math.Abs(x) <= maxTrigArg) {
		return math.Sin(x)
	}
	s, _ := sinCosDD(dd{x, 0})
	return s.hi
}

func cos(x float64) float64 {
	if !(math.Abs(x) <= maxTrigArg) {
		return math.Cos(x)
	}
	_, c := sinCosDD(dd{x, 0})
	return c.hi
}

// asin refines Go's arc sine by one Newton step on sin y = x in double-double arithmetic.
func asin(x float64) float64 {
	y := math.Asin(x)
	if math.IsNaN(y) || math.Abs(x) > 0.9999 {
		return y // too near the poles of the derivative for the step; not reached by distances under 17800 km
	}
	s, c := sinCosDD(dd{y, 0})
	f := s.add(dd{-x, 0})
	delta := f.hi / c.hi
	return quickTwoSum(y, -delta).hi
}

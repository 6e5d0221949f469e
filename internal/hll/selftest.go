package hll

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
)

// SelfTest checks the register packing and the estimator as PFSELFTEST does: random values
// written to every dense register read back unchanged, and while up to ten million distinct
// elements are added to a dense and a sparse value (promoted at sparseMax bytes), the two agree
// and stay within six standard errors at each power of ten. It returns the failure text Redis
// replies with ("TESTFAILED ..."), or "" when every check passes.
func SelfTest(sparseMax int) string {
	dense := make([]byte, DenseSize)
	copy(dense, "HYLL")
	regs := dense[HeaderSize:]
	var want [Registers]uint8
	for range 1000 {
		for i := range want {
			want[i] = uint8(rand.IntN(registerMax + 1))
			setDense(regs, i, want[i])
		}
		for i := range want {
			if got := getDense(regs, i); got != want[i] {
				return fmt.Sprintf("TESTFAILED Register %d should be %d but is %d", i, want[i], got)
			}
		}
	}
	clear(regs)
	sparse := New()
	relerr := 1.04 / math.Sqrt(Registers)
	checkpoint := int64(1)
	seed := rand.Uint64()
	var ele [8]byte
	for j := int64(1); j <= 10000000; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^seed)
		dense, _, _ = Add(dense, ele[:], sparseMax)
		var err error
		if sparse, _, err = Add(sparse, ele[:], sparseMax); err != nil {
			return "TESTFAILED dense/sparse disagree"
		}
		if j != checkpoint {
			continue
		}
		if j < int64(sparseMax/2) && Encoding(sparse) != Sparse {
			return "TESTFAILED sparse encoding not used"
		}
		cd, _ := Count(dense)
		cs, _ := Count(sparse)
		if cd != cs {
			return "TESTFAILED dense/sparse disagree"
		}
		abserr := checkpoint - int64(cd)
		maxerr := int64(math.Ceil(relerr * 6 * float64(checkpoint)))
		if j == 10 {
			maxerr = 1 // collisions make larger errors likely at this size
		}
		if abserr < 0 {
			abserr = -abserr
		}
		if abserr > maxerr {
			return fmt.Sprintf("TESTFAILED Too big error. card:%d abserr:%d", checkpoint, abserr)
		}
		checkpoint *= 10
	}
	return ""
}

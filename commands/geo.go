package commands

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/strata-db/strata/internal/geohash"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// Error replies of the geo family, byte for byte as Redis 7.0 sends them.
const (
	ErrGeoUnit         = "ERR unsupported unit provided. please use M, KM, FT, MI"
	ErrGeoRadiusNum    = "ERR need numeric radius"
	ErrGeoWidthNum     = "ERR need numeric width"
	ErrGeoHeightNum    = "ERR need numeric height"
	ErrGeoRadiusNeg    = "ERR radius cannot be negative"
	ErrGeoBoxNeg       = "ERR height or width cannot be negative"
	ErrGeoMember       = "ERR could not decode requested zset member"
	ErrGeoCount        = "ERR COUNT must be > 0"
	ErrGeoAnyCount     = "ERR the ANY argument requires COUNT argument"
	ErrGeoStoreWith    = "ERR %s is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
	ErrGeoFrom         = "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %s"
	ErrGeoBy           = "ERR exactly one of BYRADIUS and BYBOX can be specified for %s"
	ErrGeoLonLatFormat = "ERR invalid longitude,latitude pair %s,%s"
)

// Variants of the search commands.
const (
	geoFromCoords  = 1 << iota // GEORADIUS: longitude and latitude arguments
	geoFromMember              // GEORADIUSBYMEMBER: a member argument
	geoNoStore                 // the _RO variants: no STORE or STOREDIST
	geoSearch                  // GEOSEARCH's FROM.../BY... arguments
	geoSearchStore             // GEOSEARCHSTORE: a destination, STOREDIST as a flag
)

func init() {
	w, r := FlagWrite|FlagDenyOOM, FlagReadonly
	search := func(flags int) func(*Ctx) { return func(c *Ctx) { geoSearchGeneric(c, flags) } }
	register(
		&Command{Name: "geoadd", Arity: -5, Flags: w, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGeoAdd},
		&Command{Name: "geodist", Arity: -4, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGeoDist},
		&Command{Name: "geohash", Arity: -2, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGeoHash},
		&Command{Name: "geopos", Arity: -2, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGeoPos},
		&Command{Name: "georadius", Arity: -6, Flags: w, FirstKey: 1, LastKey: 1, Step: 1, Keys: geoRadiusKeys(6),
			Handler: search(geoFromCoords)},
		&Command{Name: "georadiusbymember", Arity: -5, Flags: w, FirstKey: 1, LastKey: 1, Step: 1, Keys: geoRadiusKeys(5),
			Handler: search(geoFromMember)},
		&Command{Name: "georadius_ro", Arity: -6, Flags: r, FirstKey: 1, LastKey: 1, Step: 1,
			Handler: search(geoFromCoords | geoNoStore)},
		&Command{Name: "georadiusbymember_ro", Arity: -5, Flags: r, FirstKey: 1, LastKey: 1, Step: 1,
			Handler: search(geoFromMember | geoNoStore)},
		&Command{Name: "geosearch", Arity: -7, Flags: r, FirstKey: 1, LastKey: 1, Step: 1, Handler: search(geoSearch)},
		&Command{Name: "geosearchstore", Arity: -8, Flags: w, FirstKey: 1, LastKey: 2, Step: 1,
			Handler: search(geoSearch | geoSearchStore)},
	)
}

// geoRadiusKeys returns the key extractor of GEORADIUS and GEORADIUSBYMEMBER, as Redis's key
// specs find them: the source, the argument after the first STORE and the one after the first
// STOREDIST from the optional arguments on; and also the destination the command writes (after
// the last of them) when a repeated option moves it, so that it is locked too.
func geoRadiusKeys(base int) func(args [][]byte) [][]byte {
	return func(args [][]byte) [][]byte {
		keys := [][]byte{args[1]}
		store, storeDist, last := 0, 0, 0 // argument indexes, 0 for none
		for i := base; i+1 < len(args); i++ {
			switch {
			case zfold(args[i], "store"):
				store = cmp.Or(store, i+1)
			case zfold(args[i], "storedist"):
				storeDist = cmp.Or(storeDist, i+1)
			default:
				continue
			}
			last = i + 1
			i++
		}
		for _, k := range []int{store, storeDist} {
			if k > 0 {
				keys = append(keys, args[k])
			}
		}
		if last > 0 && last != store && last != storeDist {
			keys = append(keys, args[last])
		}
		return keys
	}
}

// formatCFloat formats f as C's "%f".
func formatCFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoLonLat parses a longitude and a latitude at arguments i and i+1 and checks their range.
func geoLonLat(c *Ctx, i int) (lon, lat float64, ok bool) {
	if lon, ok = zParseScore(c.Args[i]); !ok {
		c.W.Error(ErrNotFloat)
		return 0, 0, false
	}
	if lat, ok = zParseScore(c.Args[i+1]); !ok {
		c.W.Error(ErrNotFloat)
		return 0, 0, false
	}
	if lon < geohash.LonMin || lon > geohash.LonMax || lat < geohash.LatMin || lat > geohash.LatMax {
		c.W.Error(fmt.Sprintf(ErrGeoLonLatFormat, formatCFloat(lon), formatCFloat(lat)))
		return 0, 0, false
	}
	return lon, lat, true
}

// geoUnit returns the meters in a unit argument, replying the error for an unknown one.
func geoUnit(c *Ctx, i int) (float64, bool) {
	switch strings.ToLower(c.Arg(i)) {
	case "m":
		return 1, true
	case "km":
		return 1000, true
	case "ft":
		return 0.3048, true
	case "mi":
		return 1609.34, true
	}
	c.W.Error(ErrGeoUnit)
	return 0, false
}

// geoNumber parses a distance argument (as Redis parses doubles), replying errText if it is
// not one.
func geoNumber(c *Ctx, i int, errText string) (float64, bool) {
	f, ok := zParseScore(c.Args[i])
	if !ok {
		c.W.Error(errText)
		return 0, false
	}
	return f, true
}

// geoDistance formats a distance as Redis does: four decimals, rounded half to even.
func geoDistance(d float64) []byte {
	if d == 0 {
		return []byte("0.0000")
	}
	v := int64(math.RoundToEven(d * 10000))
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
	}
	var b []byte
	if neg {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, u/10000, 10)
	b = append(b, '.')
	frac := strconv.FormatUint(u%10000, 10)
	b = append(b, "0000"[len(frac):]...)
	return append(b, frac...)
}

// geoCoord writes a coordinate as Redis's human long double: "%.17Lf" without trailing
// zeros, a RESP3 double or a RESP2 bulk string.
func geoCoord(w *resp.Writer, f float64) {
	s := strconv.FormatFloat(f, 'f', 17, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	w.DoubleText([]byte(s))
}

func cmdGeoAdd(c *Ctx) {
	var nx, xx bool
	i := 2
opts:
	for ; i < len(c.Args); i++ {
		switch a := c.Args[i]; {
		case zfold(a, "nx"):
			nx = true
		case zfold(a, "xx"):
			xx = true
		case zfold(a, "ch"):
		default:
			break opts
		}
	}
	if (len(c.Args)-i)%3 != 0 || nx && xx {
		c.W.Error(ErrSyntax)
		return
	}
	// GEOADD is ZADD with each position encoded as its score.
	zargs := make([][]byte, 0, i+(len(c.Args)-i)/3*2)
	zargs = append(zargs, []byte("zadd"))
	zargs = append(zargs, c.Args[1:i]...)
	for j := i; j < len(c.Args); j += 3 {
		lon, lat, ok := geoLonLat(c, j)
		if !ok {
			return
		}
		score, _ := geohash.Score(lon, lat)
		zargs = append(zargs, strconv.AppendUint(nil, score, 10), c.Args[j+2])
	}
	args := c.Args
	c.Args = zargs
	zaddGeneric(c, false)
	c.Args = args
	if c.Effects == nil {
		c.Effect(zargs...) // propagated as that ZADD
	}
}

// geoOpen opens the sorted set at argument i; nil with ok for a missing key.
func geoOpen(c *Ctx, i int) (*storage.ZSet, bool) {
	z, ok := zOpen(c, i)
	if !ok {
		return nil, false
	}
	if !z.Exists() {
		return nil, true
	}
	return z, true
}

// geoMemberPos returns the position of member in z.
func geoMemberPos(z *storage.ZSet, member []byte) (lon, lat float64, found bool, err error) {
	score, ok, err := z.Score(member)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	lon, lat, ok = geohash.DecodeScore(score)
	return lon, lat, ok, nil
}

func cmdGeoDist(c *Ctx) {
	toMeters := 1.0
	switch {
	case len(c.Args) == 5:
		var ok bool
		if toMeters, ok = geoUnit(c, 4); !ok {
			return
		}
	case len(c.Args) > 5:
		c.W.Error(ErrSyntax)
		return
	}
	z, ok := geoOpen(c, 1)
	if !ok {
		return
	}
	if z == nil {
		c.W.Null()
		return
	}
	lon1, lat1, ok1, err := geoMemberPos(z, c.Args[2])
	if err != nil {
		c.Fail(err)
		return
	}
	lon2, lat2, ok2, err := geoMemberPos(z, c.Args[3])
	if err != nil {
		c.Fail(err)
		return
	}
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	c.W.Bulk(geoDistance(geohash.Distance(lon1, lat1, lon2, lat2) / toMeters))
}

func cmdGeoHash(c *Ctx) {
	z, ok := geoOpen(c, 1)
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if z == nil {
			c.W.Null()
			continue
		}
		score, found, err := z.Score(m)
		if err != nil {
			c.Fail(err)
			return
		}
		s, ok := geohash.String(score)
		if !found || !ok {
			c.W.Null()
			continue
		}
		c.W.BulkString(s)
	}
}

func cmdGeoPos(c *Ctx) {
	z, ok := geoOpen(c, 1)
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if z == nil {
			c.W.NullArray()
			continue
		}
		lon, lat, found, err := geoMemberPos(z, m)
		if err != nil {
			c.Fail(err)
			return
		}
		if !found {
			c.W.NullArray()
			continue
		}
		c.W.Array(2)
		geoCoord(c.W, lon)
		geoCoord(c.W, lat)
	}
}

package commands

import (
	"fmt"
	"sort"

	"github.com/strata-db/strata/internal/geohash"
	"github.com/strata-db/strata/storage"
)

// geoPoint is one member a search found.
type geoPoint struct {
	member   []byte
	score    float64
	lon, lat float64
	dist     float64 // meters, then in the request's unit
}

// geoQuery is a parsed search: the area, the reply options and the destination.
type geoQuery struct {
	shape                         geohash.Shape
	withDist, withHash, withCoord bool
	sort                          int // 0 none, 1 ascending, -1 descending
	any                           bool
	count                         int64
	store                         []byte
	storeDist                     bool
}

// geoSearchGeneric runs GEORADIUS, GEORADIUSBYMEMBER (and their _RO forms), GEOSEARCH and
// GEOSEARCHSTORE: the arguments in Redis's order and with its errors, the scan of the cells
// around the centre, then the reply or the stored set.
func geoSearchGeneric(c *Ctx, flags int) {
	src := 1
	if flags&geoSearchStore != 0 {
		src = 2
	}
	z, ok := geoOpen(c, src)
	if !ok {
		return
	}
	var q geoQuery
	base := 0
	switch {
	case flags&geoFromCoords != 0:
		base = 6
		if q.shape.Lon, q.shape.Lat, ok = geoLonLat(c, 2); !ok {
			return
		}
		if !geoRadiusArgs(c, 4, &q.shape) {
			return
		}
	case flags&geoFromMember != 0:
		base = 5
		if z != nil {
			if !geoCentreFromMember(c, z, c.Args[2], &q.shape) || !geoRadiusArgs(c, 3, &q.shape) {
				return
			}
		}
	default:
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			q.store = c.Args[1]
		}
	}
	if !geoOptions(c, z, base, flags, &q) {
		return
	}
	if z == nil {
		if q.store != nil {
			if _, err := c.Txn.Delete(q.store); err != nil {
				c.Fail(err)
				return
			}
			c.W.Int(0)
			return
		}
		c.W.Array(0)
		return
	}
	if q.count != 0 && q.sort == 0 && !q.any {
		q.sort = 1 // the nearest COUNT members
	}
	limit := int64(0)
	if q.any {
		limit = q.count
	}
	points, err := geoCollect(z, &q.shape, limit)
	if err != nil {
		c.Fail(err)
		return
	}
	if len(points) == 0 && q.store == nil {
		c.W.Array(0)
		return
	}
	n := int64(len(points))
	if q.count != 0 && q.count < n {
		n = q.count
	}
	switch q.sort {
	case 1:
		sort.SliceStable(points, func(i, j int) bool { return points[i].dist < points[j].dist })
	case -1:
		sort.SliceStable(points, func(i, j int) bool { return points[i].dist > points[j].dist })
	}
	points = points[:n]
	for i := range points {
		points[i].dist /= q.shape.Conversion
	}
	if q.store != nil {
		geoStore(c, &q, points)
		return
	}
	geoReply(c, &q, points)
}

// geoRadiusArgs parses GEORADIUS's radius and unit at arguments i and i+1.
func geoRadiusArgs(c *Ctx, i int, s *geohash.Shape) bool {
	r, ok := geoNumber(c, i, ErrGeoRadiusNum)
	if !ok {
		return false
	}
	if r < 0 {
		c.W.Error(ErrGeoRadiusNeg)
		return false
	}
	conv, ok := geoUnit(c, i+1)
	if !ok {
		return false
	}
	s.Box, s.Radius, s.Conversion = false, r, conv
	return true
}

// geoBoxArgs parses BYBOX's width, height and unit at arguments i to i+2.
func geoBoxArgs(c *Ctx, i int, s *geohash.Shape) bool {
	w, ok := geoNumber(c, i, ErrGeoWidthNum)
	if !ok {
		return false
	}
	h, ok := geoNumber(c, i+1, ErrGeoHeightNum)
	if !ok {
		return false
	}
	if h < 0 || w < 0 {
		c.W.Error(ErrGeoBoxNeg)
		return false
	}
	conv, ok := geoUnit(c, i+2)
	if !ok {
		return false
	}
	s.Box, s.Width, s.Height, s.Conversion = true, w, h, conv
	return true
}

// geoCentreFromMember sets the search centre to member's position.
func geoCentreFromMember(c *Ctx, z *storage.ZSet, member []byte, s *geohash.Shape) bool {
	lon, lat, found, err := geoMemberPos(z, member)
	if err != nil {
		c.Fail(err)
		return false
	}
	if !found {
		c.W.Error(ErrGeoMember)
		return false
	}
	s.Lon, s.Lat = lon, lat
	return true
}

// geoOptions parses the arguments from base on into q, replying the first error as Redis does.
func geoOptions(c *Ctx, z *storage.ZSet, base, flags int, q *geoQuery) bool {
	var fromMember, fromLoc, byRadius, byBox bool
	args := c.Args
	search := flags&geoSearch != 0
	storeOK := flags&geoNoStore == 0 && !search
	for i := base; i < len(args); i++ {
		a := args[i]
		left := len(args) - i - 1 // arguments after this one
		switch {
		case zfold(a, "withdist"):
			q.withDist = true
		case zfold(a, "withhash"):
			q.withHash = true
		case zfold(a, "withcoord"):
			q.withCoord = true
		case zfold(a, "any"):
			q.any = true
		case zfold(a, "asc"):
			q.sort = 1
		case zfold(a, "desc"):
			q.sort = -1
		case zfold(a, "count") && left >= 1:
			n, ok := c.Int(i + 1)
			if !ok {
				return false
			}
			if n <= 0 {
				c.W.Error(ErrGeoCount)
				return false
			}
			q.count = n
			i++
		case zfold(a, "store") && left >= 1 && storeOK:
			q.store, q.storeDist = args[i+1], false
			i++
		case zfold(a, "storedist") && left >= 1 && storeOK:
			q.store, q.storeDist = args[i+1], true
			i++
		case zfold(a, "storedist") && search && flags&geoSearchStore != 0:
			q.storeDist = true
		case zfold(a, "frommember") && left >= 1 && search && !fromLoc:
			if z != nil && !geoCentreFromMember(c, z, args[i+1], &q.shape) {
				return false
			}
			fromMember = true
			i++
		case zfold(a, "fromlonlat") && left >= 2 && search && !fromMember:
			var ok bool
			if q.shape.Lon, q.shape.Lat, ok = geoLonLat(c, i+1); !ok {
				return false
			}
			fromLoc = true
			i += 2
		case zfold(a, "byradius") && left >= 2 && search && !byBox:
			if !geoRadiusArgs(c, i+1, &q.shape) {
				return false
			}
			byRadius = true
			i += 2
		case zfold(a, "bybox") && left >= 3 && search && !byRadius:
			if !geoBoxArgs(c, i+1, &q.shape) {
				return false
			}
			byBox = true
			i += 3
		default:
			c.W.Error(ErrSyntax)
			return false
		}
	}
	switch {
	case q.store != nil && (q.withDist || q.withHash || q.withCoord):
		what := "STORE option in GEORADIUS"
		if flags&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		c.W.Error(fmt.Sprintf(ErrGeoStoreWith, what))
	case search && !fromMember && !fromLoc:
		c.W.Error(fmt.Sprintf(ErrGeoFrom, args[0]))
	case search && !byRadius && !byBox:
		c.W.Error(fmt.Sprintf(ErrGeoBy, args[0]))
	case q.any && q.count == 0:
		c.W.Error(ErrGeoAnyCount)
	default:
		return true
	}
	return false
}

// geoCollect scans the cells of the search area in Redis's order and returns the members
// inside the shape, stopping at limit members when limit is positive (ANY).
func geoCollect(z *storage.ZSet, s *geohash.Shape, limit int64) ([]geoPoint, error) {
	areas := s.Areas()
	var out []geoPoint
	last := -1
	full := func() bool { return limit > 0 && int64(len(out)) >= limit }
	for i, h := range areas {
		if h.Zero() {
			continue
		}
		// Huge radii can make neighbours repeat the cell just scanned.
		if last > 0 && areas[last] == h {
			continue
		}
		if len(out) > 0 && full() {
			break
		}
		lo, hi := geohash.ScoreRange(h)
		r := storage.ScoreRange{Min: float64(lo), Max: float64(hi), MaxEx: true}
		err := z.RangeByScore(r, false, 0, -1, func(member []byte, score float64) bool {
			lon, lat, ok := geohash.DecodeScore(score)
			if !ok {
				return true
			}
			if d, in := s.Within(lon, lat); in {
				out = append(out, geoPoint{member: append([]byte(nil), member...), score: score, lon: lon, lat: lat, dist: d})
			}
			return !full()
		})
		if err != nil {
			return nil, err
		}
		last = i
	}
	return out, nil
}

// geoReply writes the found members with the requested extras.
func geoReply(c *Ctx, q *geoQuery, points []geoPoint) {
	extras := 0
	for _, on := range []bool{q.withDist, q.withCoord, q.withHash} {
		if on {
			extras++
		}
	}
	c.W.Array(len(points))
	for _, p := range points {
		if extras > 0 {
			c.W.Array(extras + 1)
		}
		c.W.Bulk(p.member)
		if q.withDist {
			c.W.Bulk(geoDistance(p.dist))
		}
		if q.withHash {
			c.W.Int(int64(p.score))
		}
		if q.withCoord {
			c.W.Array(2)
			geoCoord(c.W, p.lon)
			geoCoord(c.W, p.lat)
		}
	}
}

// geoStore replaces the destination with the found members, scored by their hash or (STOREDIST)
// their distance, or deletes it when nothing was found, and replies the number stored.
func geoStore(c *Ctx, q *geoQuery, points []geoPoint) {
	entries := make([]storage.ZEntry, 0, len(points))
	seen := make(map[string]bool, len(points)) // a set holds each member once
	for _, p := range points {
		if seen[string(p.member)] {
			continue
		}
		seen[string(p.member)] = true
		e := storage.ZEntry{Member: p.member, Score: p.score}
		if q.storeDist {
			e.Score = p.dist
		}
		entries = append(entries, e)
	}
	n, err := c.Txn.ZStore(q.store, entries)
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(n)
}

// Package geohash is Redis's 52-bit geohash arithmetic: the encoding of a longitude and
// latitude into a sorted-set score, its decoding back to the centre of its cell, the cells
// around a point that a radius or box search visits, and the distances that decide which
// members match, with the same floating-point steps so that searches answer the same members
// and distances as Redis.
//
// # Encoding
//
// A position is scaled into the longitude range -180..180 and the latitude range
// -85.05112878..85.05112878 (the limits of Web Mercator), each offset truncated to a step-bit
// integer, and the two interleaved: latitude in the even bits, longitude in the odd ones. At
// step 26 this gives the 52-bit score a geo member has. Decoding returns the centre of the
// cell, clamped to the ranges. The GEOHASH string is a re-encoding of that centre over the
// standard latitude range -90..90 in base 32.
//
// # Searching
//
// Search picks a step from the radius (the cell must be about as large as the area), checks
// that the neighbouring cells reach the edges of the area's bounding box (else it takes one
// step coarser), and drops the neighbours that lie wholly outside the box. The caller scans the
// score ranges of the remaining cells (Align52 gives their bounds) and keeps the members that
// Within accepts: inside the radius by haversine distance on a sphere of radius EarthRadius, or
// inside the box by latitude and longitude distance.
//
// # Arithmetic
//
// Every step is float64 arithmetic in the order Redis evaluates it, with pi/180 computed at run
// time as C does. Sines, cosines and arc sines are computed in double-double arithmetic and
// rounded once (trig.go): the C library rounds these correctly for all but about one argument
// in a thousand, where Go's math package misses about one in four, and a missed unit in the last
// place shows in the distances STOREDIST stores.
package geohash

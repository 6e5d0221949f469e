package commands

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/strata-db/strata/internal/num"
)

// Tracker is implemented by a server that supports server-assisted client-side caching
// (CLIENT TRACKING, server/tracking.go). The CLIENT subcommands parse and check their options
// here, with Redis 7.0's errors, and hand the result to the server.
type Tracker interface {
	// ClientExists reports whether a client with this ID is connected (REDIRECT's check).
	ClientExists(id int64) bool
	// TrackingState returns the tracking settings of client cl.
	TrackingState(cl *Client) TrackingState
	// EnableTracking turns tracking on for cl with options already checked, or changes the
	// options of a client that tracks already (BCAST prefixes are added to the present ones).
	EnableTracking(cl *Client, o TrackingOptions)
	// DisableTracking turns tracking off for cl.
	DisableTracking(cl *Client)
	// SetCaching records CLIENT CACHING YES (OPTIN) or NO (OPTOUT) for cl's next command.
	SetCaching(cl *Client)
}

// TrackingOptions are the options of CLIENT TRACKING ON.
type TrackingOptions struct {
	Redirect                     int64 // client ID to send invalidations to; 0 for none
	Prefixes                     [][]byte
	BCast, OptIn, OptOut, NoLoop bool
}

// TrackingState is a client's tracking settings, as CLIENT TRACKINGINFO reports them.
type TrackingState struct {
	On, BCast, OptIn, OptOut, NoLoop bool
	Caching                          bool // CLIENT CACHING YES/NO was given for the next command
	BrokenRedirect                   bool // the redirect client went away
	Redirect                         int64
	Prefixes                         [][]byte // sorted
}

// tracker returns the server's Tracker, or nil when the Env has none.
func tracker(c *Ctx) Tracker {
	t, _ := c.Env.(Tracker)
	return t
}

func trackingState(c *Ctx) TrackingState {
	if t := tracker(c); t != nil {
		return t.TrackingState(c.Client)
	}
	return TrackingState{}
}

// clientTracking implements CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
// [OPTOUT] [NOLOOP] as Redis 7.0's clientCommand: the options are parsed first (for OFF too),
// then checked against each other and against the client's present mode.
func clientTracking(c *Ctx) {
	tr := tracker(c)
	var o TrackingOptions
	for j := 3; j < len(c.Args); j++ {
		more := j < len(c.Args)-1
		switch opt := strings.ToLower(c.Arg(j)); {
		case opt == "redirect" && more:
			j++
			if o.Redirect != 0 {
				c.W.Error("ERR A client can only redirect to a single other client")
				return
			}
			id, err := num.ParseInt(c.Args[j])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return
			}
			if tr == nil || !tr.ClientExists(id) {
				c.W.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			o.Redirect = id
		case opt == "bcast":
			o.BCast = true
		case opt == "optin":
			o.OptIn = true
		case opt == "optout":
			o.OptOut = true
		case opt == "noloop":
			o.NoLoop = true
		case opt == "prefix" && more:
			j++
			o.Prefixes = append(o.Prefixes, c.Args[j])
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	switch strings.ToLower(c.Arg(2)) {
	case "on":
		if tr == nil {
			c.W.Error("ERR this command needs a running server")
			return
		}
		cur := tr.TrackingState(c.Client)
		switch {
		case !o.BCast && len(o.Prefixes) > 0:
			c.W.Error("ERR PREFIX option requires BCAST mode to be enabled")
		case cur.On && cur.BCast != o.BCast:
			c.W.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, " +
				"and then re-enabling it with a different mode.")
		case o.BCast && (o.OptIn || o.OptOut):
			c.W.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
		case o.OptIn && o.OptOut:
			c.W.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
		case o.OptIn && cur.OptOut || o.OptOut && cur.OptIn:
			c.W.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, " +
				"and then re-enabling it with a different mode.")
		case o.BCast && !prefixesOK(c, cur.Prefixes, o.Prefixes):
		default:
			tr.EnableTracking(c.Client, o)
			c.W.OK()
		}
	case "off":
		if tr != nil {
			tr.DisableTracking(c.Client)
		}
		c.W.OK()
	default:
		c.W.Error(ErrSyntax)
	}
}

// prefixesOK checks, as Redis's checkPrefixCollisionsOrReply, that no new BCAST prefix is a
// prefix of (or has as prefix) one the client has or another new one, and replies the error.
func prefixesOK(c *Ctx, have, add [][]byte) bool {
	overlap := func(a, b []byte) bool {
		n := min(len(a), len(b))
		return bytes.Equal(a[:n], b[:n])
	}
	for i, p := range add {
		for _, h := range have {
			if overlap(h, p) {
				c.W.Error(fmt.Sprintf("ERR Prefix '%s' overlaps with an existing prefix '%s'. "+
					"Prefixes for a single client must not overlap.", p, h))
				return false
			}
		}
		for _, q := range add[i+1:] {
			if overlap(p, q) {
				c.W.Error(fmt.Sprintf("ERR Prefix '%s' overlaps with another provided prefix '%s'. "+
					"Prefixes for a single client must not overlap.", p, q))
				return false
			}
		}
	}
	return true
}

func clientCaching(c *Ctx) {
	st := trackingState(c)
	if !st.On {
		c.W.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch strings.ToLower(c.Arg(2)) {
	case "yes":
		if !st.OptIn {
			c.W.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case "no":
		if !st.OptOut {
			c.W.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		c.W.Error(ErrSyntax)
		return
	}
	tracker(c).SetCaching(c.Client)
	c.W.OK()
}

func clientGetRedir(c *Ctx) {
	if st := trackingState(c); st.On {
		c.W.Int(st.Redirect)
		return
	}
	c.W.Int(-1)
}

func clientTrackingInfo(c *Ctx) {
	st := trackingState(c)
	flags := []string{"off"}
	if st.On {
		flags[0] = "on"
	}
	if st.BCast {
		flags = append(flags, "bcast")
	}
	if st.OptIn {
		flags = append(flags, "optin")
		if st.Caching {
			flags = append(flags, "caching-yes")
		}
	}
	if st.OptOut {
		flags = append(flags, "optout")
		if st.Caching {
			flags = append(flags, "caching-no")
		}
	}
	if st.NoLoop {
		flags = append(flags, "noloop")
	}
	if st.BrokenRedirect {
		flags = append(flags, "broken_redirect")
	}
	c.W.Map(3)
	c.W.BulkString("flags")
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.BulkString(f)
	}
	c.W.BulkString("redirect")
	if st.On {
		c.W.Int(st.Redirect)
	} else {
		c.W.Int(-1)
	}
	c.W.BulkString("prefixes")
	c.W.Array(len(st.Prefixes))
	for _, p := range st.Prefixes {
		c.W.Bulk(p)
	}
}

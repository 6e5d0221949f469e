package commands

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/storage"
)

// TestHLLGeoEvents checks the keyspace events of the HyperLogLog and geo writes: pfadd for
// PFADD and PFMERGE, zadd for GEOADD, georadiusstore / geosearchstore or del for the stores.
func TestHLLGeoEvents(t *testing.T) {
	EnableKeyEvents()
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Databases: 1, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ke := &KeyEvents{}
	ke.SetClasses(config.NotifyAll | config.NotifyKeyspace)
	client := &Client{Proto: 2, Authed: true}
	run := func(args ...string) (string, string) {
		c := dispatchAs(st, client, notifyEnv{config.Default()}, ke, args...)
		var evs []string
		for _, ev := range c.Events {
			evs = append(evs, fmt.Sprintf("%s:%s", ev.Name, ev.Key))
		}
		return strings.TrimSpace(string(c.W.Bytes())), strings.Join(evs, " ")
	}
	for _, tc := range []struct {
		args  []string
		reply string
		want  string
	}{
		{[]string{"PFADD", "h", "a"}, ":1", "pfadd:h"},
		{[]string{"PFADD", "h", "a"}, ":0", ""},
		{[]string{"PFCOUNT", "h"}, ":1", ""},
		{[]string{"PFMERGE", "h2", "h"}, "+OK", "pfadd:h2"},
		{[]string{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"}, ":2", "zadd:g"},
		{[]string{"GEOADD", "g", "13.361389", "38.115556", "Palermo"}, ":0", ""},
		{[]string{"GEOADD", "g", "200", "38", "x"}, "-ERR invalid longitude,latitude pair 200.000000,38.000000", ""},
		{[]string{"GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d"}, ":2", "georadiusstore:d"},
		{[]string{"GEORADIUS", "g", "15", "37", "200", "km"}, "*2", ""},
		{[]string{"GEORADIUSBYMEMBER", "g", "Palermo", "1", "km", "STOREDIST", "d"}, ":1", "georadiusstore:d"},
		{[]string{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"}, ":0", "del:d"},
		{[]string{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"}, ":0", ""},
		{[]string{"GEOSEARCHSTORE", "d", "g", "FROMMEMBER", "Catania", "BYBOX", "10", "10", "km"}, ":1", "geosearchstore:d"},
		{[]string{"GEORADIUS", "nosuch", "15", "37", "200", "km", "STORE", "d"}, ":0", "del:d"},
	} {
		reply, got := run(tc.args...)
		if !strings.HasPrefix(reply, tc.reply) || got != tc.want {
			t.Errorf("%v: reply %q, events %q; want %q, %q", tc.args, reply, got, tc.reply, tc.want)
		}
	}
}

func TestGeoDistanceFormat(t *testing.T) {
	for _, tc := range []struct {
		d    float64
		want string
	}{
		{0, "0.0000"}, {0.00005, "0.0000"}, {0.00015, "0.0001"}, {0.5, "0.5000"}, // 0.00015*1e4 is just under 1.5
		{166274.1516, "166274.1516"}, {12.34567, "12.3457"}, {1e9, "1000000000.0000"},
	} {
		if got := string(geoDistance(tc.d)); got != tc.want {
			t.Errorf("geoDistance(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestGeoRadiusKeys(t *testing.T) {
	args := func(s string) [][]byte {
		var out [][]byte
		for _, f := range strings.Fields(s) {
			out = append(out, []byte(f))
		}
		return out
	}
	keys := geoRadiusKeys(6)
	for in, want := range map[string]string{
		"georadius src 1 2 3 km":                          "src",
		"georadius src 1 2 3 km STORE d":                  "src d",
		"georadius src 1 2 3 km STORE d STOREDIST e":      "src d e",
		"georadius src 1 2 3 km STORE d STORE e":          "src d e",
		"georadius src 1 2 3 km WITHDIST STORE":           "src",
		"georadius store 1 2 3 km storedist":              "store",
		"georadius src 1 2 3 km COUNT 5 storedist x desc": "src x",
	} {
		var got []string
		for _, k := range keys(args(in)) {
			got = append(got, string(k))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: keys %v, want %s", in, got, want)
		}
	}
	empty := [][]byte{[]byte("georadius"), []byte("src"), nil, nil, nil, []byte("km"), []byte("store"), {}, []byte("store"), []byte("d")}
	if got := keys(empty); len(got) != 3 || len(got[1]) != 0 || string(got[2]) != "d" {
		t.Errorf("empty destination: keys %q", got)
	}
}

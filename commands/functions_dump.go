package commands

import (
	"bytes"
	"encoding/binary"
	"hash/crc64"
	"sort"
	"strings"
)

// FUNCTION DUMP payload, Strata's own format (Redis's is RDB-encoded and is not accepted):
//
//	"STRATAFN"          8-byte magic
//	version             1 byte, currently 1
//	count               uvarint, number of libraries
//	count × (len, code) uvarint length and the library's whole code, shebang included,
//	                    libraries in name order
//	checksum            8 bytes, big-endian CRC-64 (ECMA) of everything before it
//
// FUNCTION RESTORE answers "DUMP payload version or checksum are wrong" to anything else.

const dumpMagic = "STRATAFN"

var crcTable = crc64.MakeTable(crc64.ECMA)

func dumpLibraries(fr *funcRegistry) []byte {
	names := make([]string, 0, len(fr.libs))
	for name := range fr.libs {
		names = append(names, name)
	}
	sort.Strings(names)
	b := []byte(dumpMagic)
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, name := range names {
		code := fr.libs[name].code
		b = binary.AppendUvarint(b, uint64(len(code)))
		b = append(b, code...)
	}
	return binary.BigEndian.AppendUint64(b, crc64.Checksum(b, crcTable))
}

// parseDump returns the library codes of a payload, or false if it is not one.
func parseDump(p []byte) ([]string, bool) {
	if len(p) < len(dumpMagic)+1+8 || !bytes.HasPrefix(p, []byte(dumpMagic)) {
		return nil, false
	}
	body, sum := p[:len(p)-8], binary.BigEndian.Uint64(p[len(p)-8:])
	if crc64.Checksum(body, crcTable) != sum || body[len(dumpMagic)] != 1 {
		return nil, false
	}
	rest := body[len(dumpMagic)+1:]
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)) {
		return nil, false
	}
	rest = rest[k:]
	codes := make([]string, 0, n)
	for i := uint64(0); i < n; i++ {
		l, k := binary.Uvarint(rest)
		if k <= 0 || l > uint64(len(rest)-k) {
			return nil, false
		}
		codes = append(codes, string(rest[k:k+int(l)]))
		rest = rest[k+int(l):]
	}
	return codes, len(rest) == 0
}

// functionRestore is FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]. Nothing changes unless
// every library loads and no function name collides.
func functionRestore(c *Ctx, h *scriptHost, fr *funcRegistry) {
	if len(c.Args) > 4 {
		c.W.Error("ERR unknown subcommand or wrong number of arguments for '" + c.Arg(1) + "'. Try FUNCTION HELP.")
		return
	}
	policy := "append"
	if len(c.Args) == 4 {
		policy = strings.ToLower(c.Arg(3))
		if policy != "append" && policy != "replace" && policy != "flush" {
			c.W.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	codes, ok := parseDump(c.Args[2])
	if !ok {
		c.W.Error("ERR DUMP payload version or checksum are wrong")
		return
	}
	target := fr
	if policy == "flush" {
		target = h.newFuncRegistry()
	}
	// Compile every library first; function names are checked against what stays.
	var libs []*funcLibrary
	replaced := map[*funcLibrary]bool{}
	for _, code := range codes {
		name, _, msg := parseLibraryShebang(code)
		if msg != "" {
			c.W.Error(msg)
			return
		}
		old := target.libs[name]
		if old != nil {
			if policy != "replace" {
				c.W.Error("ERR Library " + name + " already exists")
				return
			}
			replaced[old] = true
		}
		lib, msg := target.compileUnchecked(code)
		if lib == nil {
			c.W.Error(msg)
			return
		}
		libs = append(libs, lib)
	}
	seen := map[string]bool{}
	for _, lib := range libs {
		for _, f := range lib.funcs {
			key := strings.ToLower(f.name)
			if other := target.funcs[key]; other != nil && !replaced[other.lib] || seen[key] {
				c.W.Error("ERR Function " + f.name + " already exists")
				return
			}
			seen[key] = true
		}
	}
	put := map[string]string{}
	for _, lib := range libs {
		put[lib.name] = lib.code
	}
	if err := c.Store.UpdateFunctionLibraries(policy == "flush", nil, put); err != nil {
		c.Fail(err)
		return
	}
	for old := range replaced {
		target.unlink(old)
	}
	for _, lib := range libs {
		target.link(lib, nil)
	}
	if policy == "flush" {
		fr.vm.L.Close()
		h.funcs = target
	}
	c.W.OK()
}

// compileUnchecked compiles a library without checking its function names against the
// registry.
func (fr *funcRegistry) compileUnchecked(code string) (*funcLibrary, string) {
	saved := fr.funcs
	fr.funcs = map[string]*funcDef{}
	defer func() { fr.funcs = saved }()
	return fr.compile(code, nil)
}

package scripting

import (
	"bytes"
	"encoding/binary"
	"hash/crc64"
	"sort"
	"strings"

	"github.com/strata-db/strata/storage"
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
		code := fr.libs[name].Code
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

// RestorePolicy is how FUNCTION RESTORE treats the libraries already loaded.
type RestorePolicy int

// The restore policies.
const (
	RestoreAppend  RestorePolicy = iota // keep them; a library of the same name is an error
	RestoreReplace                      // keep them; a library of the same name is replaced
	RestoreFlush                        // delete them all first
)

// DumpLibraries is FUNCTION DUMP: the payload of every library of s. It takes e's lock.
func (e *Engine) DumpLibraries(s *storage.Store) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return dumpLibraries(e.functions(s))
}

// RestoreLibraries is FUNCTION RESTORE: it loads the libraries of a DumpLibraries payload
// into s and e under policy, and returns the error reply (msg) or the store's error. Nothing
// changes unless every library loads and no function name collides. It takes e's lock.
func (e *Engine) RestoreLibraries(s *storage.Store, payload []byte, policy RestorePolicy) (msg string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fr := e.functions(s)
	codes, ok := parseDump(payload)
	if !ok {
		return "ERR DUMP payload version or checksum are wrong", nil
	}
	target := fr
	if policy == RestoreFlush {
		target = e.newFuncRegistry()
	}
	// Compile every library first; function names are checked against what stays.
	var libs []*Library
	replaced := map[*Library]bool{}
	for _, code := range codes {
		name, _, msg := parseLibraryShebang(code)
		if msg != "" {
			return msg, nil
		}
		old := target.libs[name]
		if old != nil {
			if policy != RestoreReplace {
				return "ERR Library " + name + " already exists", nil
			}
			replaced[old] = true
		}
		lib, msg := target.compileUnchecked(code)
		if lib == nil {
			return msg, nil
		}
		libs = append(libs, lib)
	}
	seen := map[string]bool{}
	for _, lib := range libs {
		for _, f := range lib.Functions {
			key := strings.ToLower(f.Name)
			if other := target.funcs[key]; other != nil && !replaced[other.lib] || seen[key] {
				return "ERR Function " + f.Name + " already exists", nil
			}
			seen[key] = true
		}
	}
	put := map[string]string{}
	for _, lib := range libs {
		put[lib.Name] = lib.Code
	}
	if err := s.UpdateFunctionLibraries(policy == RestoreFlush, nil, put); err != nil {
		return "", err
	}
	for old := range replaced {
		target.unlink(old)
	}
	for _, lib := range libs {
		target.link(lib, nil)
	}
	if policy == RestoreFlush {
		fr.vm.L.Close()
		e.funcs = target
	}
	return "", nil
}

// compileUnchecked compiles a library without checking its function names against the
// registry.
func (fr *funcRegistry) compileUnchecked(code string) (*Library, string) {
	saved := fr.funcs
	fr.funcs = map[string]*Function{}
	defer func() { fr.funcs = saved }()
	return fr.compile(code, nil)
}

package commands

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Where gopher-lua and Lua 5.1 differ in what scripts can see: Lua 5.1's texts for numbers
// and syntax errors, and the deprecated table functions Redis's Lua keeps.

// openTableCompat adds Lua 5.1's deprecated table functions that Redis keeps: foreach,
// foreachi and setn.
func openTableCompat(L *lua.LState, tbl *lua.LTable) {
	each := func(ipairs bool) lua.LGFunction {
		return func(L *lua.LState) int {
			t := L.CheckTable(1)
			f := L.CheckFunction(2)
			call := func(k, v lua.LValue) bool {
				L.Push(f)
				L.Push(k)
				L.Push(v)
				L.Call(2, 1)
				r := L.Get(-1)
				L.Pop(1)
				if r != lua.LNil {
					L.Push(r)
					return true
				}
				return false
			}
			if ipairs {
				for i := 1; i <= t.Len(); i++ {
					if call(lua.LNumber(i), t.RawGetInt(i)) {
						return 1
					}
				}
				return 0
			}
			for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
				if call(k, v) {
					return 1
				}
			}
			return 0
		}
	}
	tbl.RawSetString("foreach", L.NewFunction(each(false)))
	tbl.RawSetString("foreachi", L.NewFunction(each(true)))
	tbl.RawSetString("setn", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
}

// Room for a chunk's name in Lua 5.1's error positions: LUA_IDSIZE for run-time errors,
// MAXSRC for syntax errors.
const (
	luaIDSize  = 60
	luaMaxSrc  = 80
	stringRoom = len(` [string "..."] `) + 1
	fileRoom   = len(` '...' `) + 1
)

// luaChunkID is luaO_chunkid: the text error positions show for a chunk named name, in
// size bytes. "=name" is shown as is, "@file" by its last part, any other name as
// [string "its first line"] ("..." marks a cut). The name is a C string there: a NUL ends it.
func luaChunkID(name string, size int) string {
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	switch {
	case strings.HasPrefix(name, "="):
		return name[1:min(len(name), size)]
	case strings.HasPrefix(name, "@"):
		if room := size - fileRoom; len(name)-1 > room {
			return "..." + name[len(name)-room:]
		}
		return name[1:]
	}
	n := strings.IndexAny(name, "\n\r")
	if n < 0 {
		n = len(name)
	}
	n = min(n, size-stringRoom)
	if n < len(name) {
		return `[string "` + name[:n] + `..."]`
	}
	return `[string "` + name + `"]`
}

// compileErrorText rewrites a gopher-lua syntax error ("name line:3(column:5) near 'x':
// syntax error") into Lua 5.1's form ("name:3: unexpected symbol near 'x'").
func compileErrorText(err error, chunk, src string) string {
	msg := err.Error()
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Cause != nil {
		msg = ae.Cause.Error()
	}
	msg = strings.TrimSpace(strings.TrimPrefix(msg, chunk))
	line := 1
	near := ""
	switch {
	case strings.HasPrefix(msg, "line:"):
		rest := msg[len("line:"):]
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		line, _ = strconv.Atoi(rest[:n])
		if i := strings.Index(rest, "near '"); i >= 0 {
			if j := strings.Index(rest[i+6:], "'"); j >= 0 {
				near = rest[i+6 : i+6+j]
			}
		}
	case strings.HasPrefix(msg, "at EOF"):
		line = strings.Count(src, "\n") + 1
		near = "<eof>"
	}
	_, what, _ := strings.Cut(msg, ":")
	if i := strings.LastIndex(msg, ":"); i >= 0 {
		what = strings.TrimSpace(msg[i+1:])
	}
	switch {
	case what == "syntax error" || what == "" || strings.HasPrefix(what, "Invalid ") && strings.HasSuffix(what, "token"):
		// Lua 5.1's lexer passes a character it does not know on to the parser, which
		// finds no place for it; a control character is shown by its code.
		what = "unexpected symbol"
		if len(near) == 1 && (near[0] < ' ' || near[0] == 0x7f) {
			near = fmt.Sprintf("char(%d)", near[0])
		}
	case strings.Contains(what, "unterminated string"):
		what = "unfinished string"
		if near != "" && near != "EOF" && line > 1 {
			// gopher-lua reports the line after the string's and leaves out its quote.
			line--
			if lines := strings.Split(src, "\n"); line <= len(lines) {
				l := lines[line-1]
				if i, j := strings.LastIndex(l, "'"+near), strings.LastIndex(l, `"`+near); i >= 0 || j >= 0 {
					if i > j {
						near = "'" + near
					} else {
						near = `"` + near
					}
				}
			}
		}
	}
	if near == "EOF" {
		near = "<eof>"
	}
	if near != "" {
		return fmt.Sprintf("%s:%d: %s near '%s'", chunk, line, what, near)
	}
	return fmt.Sprintf("%s:%d: %s", chunk, line, what)
}

// luaNumberString formats n as Lua 5.1 does ("%.14g", "inf", "nan").
func luaNumberString(n float64) string {
	switch {
	case math.IsInf(n, 1):
		return "inf"
	case math.IsInf(n, -1):
		return "-inf"
	case math.IsNaN(n):
		if math.Signbit(n) {
			return "-nan"
		}
		return "nan"
	}
	return cFormatG(n, 14)
}

// cFormatG formats f as C's printf("%.<prec>g") does for finite numbers (Go's 'g' strips
// trailing zeros and writes two-digit exponents, as C does).
func cFormatG(f float64, prec int) string { return strconv.FormatFloat(f, 'g', prec, 64) }

// luaString is lua_tostring for values that have a string form, and Lua's default text
// for the others.
func luaString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return luaNumberString(float64(x))
	}
	return v.String()
}

// gopher-lua's texts for the operations a value does not support, which Lua 5.1 words as
// "attempt to call field 'x' (a nil value)", naming where the value came from.
const (
	gopherCallError   = "attempt to call a non-function object"
	gopherIndexError  = "attempt to index a non-table object("
	gopherArithError  = "cannot perform "
	gopherUnmError    = "__unm undefined"
	gopherLenError    = "__len undefined"
	gopherCompareErr  = "attempt to compare "
	gopherOperationOf = " operation between "
	gopherArgError    = "bad argument #"
)

// lua51RuntimeError rewrites msg, an error just raised by the Lua function at level 1 of
// L's stack, into Lua 5.1's text when it is gopher-lua's for an operation the value does
// not support (call, index, arithmetic, concatenation, length, comparison); any other
// message is returned unchanged. It must run before the stack unwinds (in the message
// handler of a protected call).
func lua51RuntimeError(L *lua.LState, msg string) string {
	at, body := -1, ""
	for _, p := range []string{gopherArgError, gopherCallError, gopherIndexError, gopherArithError, gopherUnmError, gopherLenError, gopherCompareErr} {
		if i := strings.LastIndex(msg, p); i >= 0 && (i == 0 || msg[i-1] == ' ') {
			at, body = i, msg[i:]
			break
		}
	}
	if at < 0 {
		return msg
	}
	if rest, ok := strings.CutPrefix(body, gopherArgError); ok {
		if text, ok := luaArgError(L, msg, msg[:at], rest); ok {
			return text
		}
		return msg
	}
	if rest, ok := strings.CutPrefix(body, gopherCompareErr); ok {
		// Lua 5.1 tells two types apart by their third letters.
		t1, t2, ok := strings.Cut(rest, " with ")
		if ok && len(t1) > 2 && len(t2) > 2 && t1[2] == t2[2] {
			return msg[:at] + "attempt to compare two " + t1 + " values"
		}
		return msg
	}
	f, ok := failingInstruction(L)
	if !ok {
		return msg
	}
	verb := ""
	reg := -1 // the register holding the value at fault, -1 when it is a constant
	typ := "" // its type, when the message gives it
	op, a, b, c := f.op()
	switch {
	case body == gopherCallError && (op == lua.OP_CALL || op == lua.OP_TAILCALL):
		verb, reg = "call", a
	case body == gopherCallError && op == lua.OP_TFORLOOP:
		// A generic for calls a copy of its generator, which has no name.
		return msg[:at] + "attempt to call a " + f.value(a).Type().String() + " value"
	case strings.HasPrefix(body, gopherIndexError):
		t, key, ok := strings.Cut(body[len(gopherIndexError):], ") with key '")
		if !ok || !strings.HasSuffix(key, "'") {
			return msg
		}
		verb, typ = "index", t
		switch op {
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
			reg = b
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			reg = a
		default:
			return msg
		}
	case strings.HasPrefix(body, gopherArithError) && op >= lua.OP_ADD && op <= lua.OP_POW:
		_, types, ok := strings.Cut(body, gopherOperationOf)
		t1, t2, ok2 := strings.Cut(types, " and ")
		if !ok || !ok2 {
			return msg
		}
		// The first operand is at fault unless it is a number (or a string that reads as
		// one, which gopher-lua has converted); then the second.
		verb, reg, typ = "perform arithmetic on", b, t1
		if t1 == "number" {
			reg, typ = c, t2
		}
		if reg&0x100 != 0 {
			reg = -1
		}
	case strings.HasPrefix(body, gopherArithError) && op == lua.OP_CONCAT:
		verb, reg = "concatenate", f.concatCulprit(b, c)
		if reg < 0 {
			return msg
		}
	case body == gopherUnmError && op == lua.OP_UNM:
		verb, reg = "perform arithmetic on", b
	case body == gopherLenError && op == lua.OP_LEN:
		verb, reg = "get length of", b
	default:
		return msg
	}
	if reg < 0 {
		return msg[:at] + fmt.Sprintf("attempt to %s a %s value", verb, typ)
	}
	v, ok := f.register(reg)
	if !ok {
		return msg
	}
	if typ == "" {
		typ = v.Type().String()
	}
	text := fmt.Sprintf("attempt to %s a %s value", verb, typ)
	// A value reached through a metatable (__index) is not the one in the register.
	if v.Type().String() == typ {
		if kind, name := luaObjName(f.fn, f.pc, reg); kind != "" {
			text = fmt.Sprintf("attempt to %s %s '%s' (a %s value)", verb, kind, name, typ)
		}
	}
	return msg[:at] + text
}

// luaArgError rewrites gopher-lua's "bad argument #2 to rep (number expected, got nil)" as
// Lua 5.1's luaL_argerror words it: the function named as the calling instruction names it
// ('?', and no position, when no Lua code called it), self not counted in a method call,
// "got no value" for an argument not passed. msg is the whole message, where the position
// it starts with and rest what follows "bad argument #". ok is false for a text that is not
// gopher-lua's (Strata's own errors already quote the name).
func luaArgError(L *lua.LState, msg, where, rest string) (string, bool) {
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	n, err := strconv.Atoi(rest[:digits])
	after, ok := strings.CutPrefix(rest[digits:], " to ")
	if err != nil || !ok || strings.HasPrefix(after, "'") {
		return "", false
	}
	_, detail, ok := strings.Cut(after, " (")
	if !ok || !strings.HasSuffix(detail, ")") {
		return "", false
	}
	detail = detail[:len(detail)-1]
	name := "?"
	f, ok := callerFrame(L)
	if !ok {
		// Called from Go (pcall): no name, and no position either, as Lua 5.1 gives the
		// position of a Lua caller only.
		where = ""
		if dbg, ok := L.GetStack(1); ok {
			// gopher-lua leaves the error message on top of the raising function's stack.
			local, v := L.GetLocal(dbg, n)
			next, _ := L.GetLocal(dbg, n+1)
			if local == "" || next == "" && v == lua.LString(msg) {
				if d, ok := strings.CutSuffix(detail, ", got nil"); ok {
					detail = d + ", got no value"
				}
			}
		}
	} else {
		op, a, b, _ := f.op()
		if op == lua.OP_CALL || op == lua.OP_TAILCALL || op == lua.OP_TFORLOOP {
			kind, what := luaObjName(f.fn, f.pc, a)
			if kind != "" {
				name = what
			}
			if op != lua.OP_TFORLOOP && b != 0 && n > b-1 {
				// The call passed b-1 arguments: this one was not given.
				if d, ok := strings.CutSuffix(detail, ", got nil"); ok {
					detail = d + ", got no value"
				}
			}
			if kind == "method" {
				n--
				if n == 0 {
					return fmt.Sprintf("%scalling '%s' on bad self (%s)", where, name, detail), true
				}
			}
		}
	}
	return fmt.Sprintf("%sbad argument #%d to '%s' (%s)", where, n, name, detail), true
}

// callerFrame returns the frame at level 2 of L's stack, the caller of the Go function
// that raised an error, when it runs Lua code.
func callerFrame(L *lua.LState) (luaFrame, bool) { return luaFrameAt(L, 2) }

// luaFrame is a Lua function's frame stopped at an instruction.
type luaFrame struct {
	L   *lua.LState
	dbg *lua.Debug
	fn  *lua.LFunction
	pc  int
}

// failingInstruction returns the frame at level 1 of L's stack when it runs Lua code.
func failingInstruction(L *lua.LState) (luaFrame, bool) { return luaFrameAt(L, 1) }

func luaFrameAt(L *lua.LState, level int) (luaFrame, bool) {
	dbg, ok := L.GetStack(level)
	if !ok {
		return luaFrame{}, false
	}
	fv, err := L.GetInfo("f", dbg, lua.LNil)
	fn, isFn := fv.(*lua.LFunction)
	if err != nil || !isFn || fn.IsG {
		return luaFrame{}, false
	}
	pc := framePC(L, dbg, fn.Proto)
	if pc < 0 || pc >= len(fn.Proto.Code) {
		return luaFrame{}, false
	}
	return luaFrame{L: L, dbg: dbg, fn: fn, pc: pc}, true
}

// op decodes the frame's instruction.
func (f luaFrame) op() (op, a, b, c int) {
	inst := f.fn.Proto.Code[f.pc]
	return int(inst >> 26), int(inst>>18) & 0xff, int(inst & 0x1ff), int(inst>>9) & 0x1ff
}

// register returns the value in register reg of the frame.
func (f luaFrame) register(reg int) (lua.LValue, bool) {
	name, v := f.L.GetLocal(f.dbg, reg+1)
	return v, name != ""
}

func (f luaFrame) value(reg int) lua.LValue {
	v, _ := f.register(reg)
	return v
}

// concatCulprit returns the register of R(b) .. ... .. R(c) that Lua 5.1 blames: it joins
// from the right, a run of strings and numbers at a time, and a pair it cannot join blames
// its left value unless that is a string or a number. -1 when it cannot tell.
func (f luaFrame) concatCulprit(b, c int) int {
	joinable := func(v lua.LValue) bool {
		t := v.Type()
		return t == lua.LTString || t == lua.LTNumber
	}
	top := c
	for top > b {
		lhs, ok1 := f.register(top - 1)
		rhs, ok2 := f.register(top)
		if !ok1 || !ok2 {
			return -1
		}
		if !joinable(lhs) || !joinable(rhs) {
			if f.L.GetMetaField(lhs, "__concat") != lua.LNil || f.L.GetMetaField(rhs, "__concat") != lua.LNil {
				return -1
			}
			if joinable(lhs) {
				return top
			}
			return top - 1
		}
		for top > b {
			if v, ok := f.register(top - 1); !ok || !joinable(v) {
				break
			}
			top--
		}
	}
	return -1
}

// framePC returns the index in proto.Code of the instruction the frame dbg is running.
// gopher-lua reports it only as a line, looked up in proto.DbgSourcePositions by that
// index, so the lookup runs once on positions that are the indexes themselves.
func framePC(L *lua.LState, dbg *lua.Debug, proto *lua.FunctionProto) int {
	lines := proto.DbgSourcePositions
	pcs := make([]int, len(proto.Code))
	for i := range pcs {
		pcs[i] = i
	}
	proto.DbgSourcePositions = pcs
	dbg.CurrentLine = -1
	_, err := L.GetInfo("l", dbg, lua.LNil)
	proto.DbgSourcePositions = lines
	if err != nil {
		return -1
	}
	return dbg.CurrentLine
}

// luaObjName names the value in register reg at instruction pc of fn as Lua 5.1's
// getobjname does: a live local, or what the instruction that last set the register read
// (a global, a table field, an upvalue or a method). It returns "" when it cannot tell.
func luaObjName(fn *lua.LFunction, pc, reg int) (kind, name string) {
	p := fn.Proto
	active := 0
	for _, l := range p.DbgLocals {
		if l.StartPc <= pc && pc < l.EndPc {
			if active == reg {
				return "local", l.Name
			}
			active++
		}
	}
	last := lastSetter(p, pc, reg)
	if last < 0 {
		return "", ""
	}
	inst := p.Code[last]
	op, a, b, c := int(inst>>26), int(inst>>18)&0xff, int(inst&0x1ff), int(inst>>9)&0x1ff
	constant := func(i int) (string, bool) {
		if i < len(p.Constants) {
			if s, ok := p.Constants[i].(lua.LString); ok {
				return string(s), true
			}
		}
		return "", false
	}
	constName := func(rk int) string {
		if s, ok := constant(rk & 0xff); ok && rk&0x100 != 0 {
			return s
		}
		return "?"
	}
	switch op {
	case lua.OP_GETGLOBAL:
		if s, ok := constant(int(inst & 0x3ffff)); ok {
			return "global", s
		}
	case lua.OP_MOVE:
		if b < a {
			return luaObjName(fn, pc, b)
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		return "field", constName(c)
	case lua.OP_GETUPVAL:
		if b < len(p.DbgUpvalues) {
			return "upvalue", p.DbgUpvalues[b]
		}
		return "upvalue", "?"
	case lua.OP_SELF:
		return "method", constName(c)
	}
	return "", ""
}

// lastSetter returns the index of the last instruction before lastpc that set register
// reg, walking the code from its start and taking the forward jumps that stay before
// lastpc, as Lua 5.1's symbolic execution does; -1 for none.
func lastSetter(p *lua.FunctionProto, lastpc, reg int) int {
	last := -1
	for pc := 0; pc < lastpc; pc++ {
		inst := p.Code[pc]
		op, a, b, c := int(inst>>26), int(inst>>18)&0xff, int(inst&0x1ff), int(inst>>9)&0x1ff
		switch op {
		case lua.OP_MOVE, lua.OP_MOVEN, lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_GETUPVAL,
			lua.OP_GETGLOBAL, lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_NEWTABLE,
			lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW,
			lua.OP_UNM, lua.OP_NOT, lua.OP_LEN, lua.OP_CONCAT, lua.OP_TESTSET,
			lua.OP_FORLOOP, lua.OP_VARARG:
			if a == reg {
				last = pc
			}
		case lua.OP_LOADNIL:
			if a <= reg && reg <= b {
				last = pc
			}
		case lua.OP_SELF:
			if reg == a || reg == a+1 {
				last = pc
			}
		case lua.OP_CALL, lua.OP_TAILCALL:
			if reg >= a {
				last = pc
			}
		case lua.OP_TFORLOOP:
			if reg >= a+2 {
				last = pc
			}
		case lua.OP_CLOSURE:
			if a == reg {
				last = pc
			}
			// The closure's upvalues follow it as pseudo-instructions.
			if bx := int(inst & 0x3ffff); bx < len(p.FunctionPrototypes) {
				pc += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		case lua.OP_SETLIST:
			if c == 0 {
				pc++ // the next word is the block number, not an instruction
			}
		case lua.OP_JMP, lua.OP_FORPREP:
			if op == lua.OP_FORPREP && a == reg {
				last = pc
			}
			if dest := pc + 1 + int(inst&0x3ffff) - 0x1ffff; pc < dest && dest <= lastpc {
				pc = dest - 1
			}
		}
	}
	return last
}

// lua51MessageHandler is the message handler of the protected calls that leave an error as
// it is (pcall, loading a library) but for the wording of lua51RuntimeError.
func lua51MessageHandler(L *lua.LState) int {
	e := L.Get(1)
	if s, ok := e.(lua.LString); ok {
		e = lua.LString(lua51RuntimeError(L, string(s)))
	}
	L.Push(e)
	return 1
}

// luaBinaryHeader opens a Lua 5.1 binary chunk from a 64-bit build: signature, version 5.1,
// official format, little endian, 4-byte int, 8-byte size_t, 4-byte instruction, 8-byte
// floating-point number.
const luaBinaryHeader = "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"

// luaStringDump is string.dump. Strata compiles scripts for gopher-lua's machine, whose code
// Lua 5.1 cannot read, and loadstring, in Strata as in Redis, compiles source text only; so
// the dump of a Lua function is the binary chunk header alone, a string no loader accepts.
func luaStringDump(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		got := "no value"
		if L.GetTop() > 0 {
			got = L.Get(1).Type().String()
		}
		luaLError(L, "bad argument #1 to 'dump' (function expected, got "+got+")")
	}
	if fn.IsG {
		luaLError(L, "unable to dump given function")
	}
	L.Push(lua.LString(luaBinaryHeader))
	return 1
}

// luaForEach calls fn for each pair of t in the order next visits them. gopher-lua's own
// ForEach ranges over Go maps, whose order changes from one run to the next; encoders and
// replies built that way would differ between two runs of the same script.
func luaForEach(t *lua.LTable, fn func(k, v lua.LValue)) {
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		fn(k, v)
	}
}

// luaStr2Number is Lua 5.1's luaO_str2d, the conversion of a string to a number wherever
// Lua takes one for the other: C's strtod (leading spaces, a sign, decimal or hexadecimal
// digits with an exponent, inf, nan) followed by nothing but spaces. A NUL ends the string,
// as it ends a C string.
func luaStr2Number(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	var f float64
	rest := strings.ToLower(s[i:])
	switch {
	case strings.HasPrefix(rest, "infinity"), strings.HasPrefix(rest, "inf"):
		n := 3
		if strings.HasPrefix(rest, "infinity") {
			n = 8
		}
		f, i = math.Inf(1), i+n
	case strings.HasPrefix(rest, "nan"):
		f, i = math.NaN(), i+3
		if j := strings.IndexByte(s[i:], ')'); i < len(s) && s[i] == '(' && j > 0 {
			i += j + 1
		}
	case strings.HasPrefix(rest, "0x") && len(rest) > 2 && (isHexDigit(rest[2]) || rest[2] == '.' && len(rest) > 3 && isHexDigit(rest[3])):
		j := i + 2
		mant := j
		for j < len(s) && isHexDigit(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isHexDigit(s[j]) {
				j++
			}
		}
		num := "0x" + s[mant:j]
		if k := cExponent(s, j, 'p'); k > j {
			num, j = num+s[j:k], k
		} else {
			num += "p0"
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		f, i = v, j
	default:
		j := i
		digits := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j, digits = j+1, digits+1
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j, digits = j+1, digits+1
			}
		}
		if digits == 0 {
			return 0, false
		}
		j = max(j, cExponent(s, j, 'e'))
		v, err := strconv.ParseFloat(s[i:j], 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		f, i = v, j
	}
	if s[start] == '-' {
		f = -f
	}
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	return f, i == len(s)
}

// cExponent returns the end of the exponent (e or p, a sign, digits) at s[j:], or j when
// there is none.
func cExponent(s string, j int, mark byte) int {
	if j >= len(s) || s[j]|0x20 != mark {
		return j
	}
	k := j + 1
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	d := k
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == d {
		return j
	}
	return k
}

// luaStrToUL is C's strtoul as tonumber uses it for bases other than 10: leading spaces, a
// sign (a minus wraps around, as unsigned arithmetic does), "0x" in base 16, and the
// digits of base, clamped at 2^64-1. ok is false without a digit, or with anything but
// spaces after them.
func luaStrToUL(s string, base int) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' && digitValue(s[i+2]) < 16 {
		i += 2
	}
	var n uint64
	overflow := false
	start := i
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		if n > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		}
		n = n*uint64(base) + uint64(d)
	}
	if i == start {
		return 0, false
	}
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, false
	}
	switch {
	case overflow:
		n = math.MaxUint64
	case neg:
		n = -n
	}
	return float64(n), true
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// luaToNumberFn is Lua 5.1's tonumber(v [, base]).
func luaToNumberFn(L *lua.LState) int {
	base := 10
	if b := L.Get(2); b != lua.LNil {
		n, ok := luaToNumber(b)
		if !ok {
			L.TypeError(2, lua.LTNumber)
		}
		base = int(n)
	}
	if base == 10 {
		v := L.CheckAny(1)
		if n, ok := luaToNumber(v); ok {
			L.Push(lua.LNumber(n))
			return 1
		}
		L.Push(lua.LNil)
		return 1
	}
	var s string
	switch v := L.Get(1).(type) {
	case lua.LString:
		s = string(v)
	case lua.LNumber:
		s = luaNumberString(float64(v))
	default:
		L.TypeError(1, lua.LTString)
	}
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	if n, ok := luaStrToUL(s, base); ok {
		L.Push(lua.LNumber(n))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

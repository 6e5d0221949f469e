package scripting

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Runtime errors in Lua 5.1's words. gopher-lua words the errors of an operation a value
// does not support on its own ("attempt to call a non-function object"); Lua 5.1 names
// where the value came from ("attempt to call field 'x' (a nil value)"). The message
// handlers of scripts, pcall, xpcall and library loading rewrite them while the failing
// frame is still on the stack: they find the instruction that failed and name its operand
// as Lua 5.1's getobjname does, from the function's bytecode.

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

// forLoopErrors are gopher-lua's texts for a numeric for's bound that is not a number,
// and Lua 5.1's.
var forLoopErrors = map[string]string{
	"for statement init must be a number":  "'for' initial value must be a number",
	"for statement limit must be a number": "'for' limit must be a number",
	"for statement step must be a number":  "'for' step must be a number",
}

// lua51RuntimeError rewrites msg, an error just raised by the Lua function at level 1 of
// L's stack, into Lua 5.1's text when it is gopher-lua's for an operation the value does
// not support (call, index, arithmetic, concatenation, length, comparison); any other
// message is returned unchanged. It must run before the stack unwinds (in the message
// handler of a protected call).
func lua51RuntimeError(L *lua.LState, msg string) string {
	for gopher, lua51 := range forLoopErrors {
		if strings.HasSuffix(msg, gopher) {
			return strings.TrimSuffix(msg, gopher) + lua51
		}
	}
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

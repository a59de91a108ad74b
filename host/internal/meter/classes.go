package meter

import "github.com/kube32/kube32/abi"

// classOf is the class of the instruction op (with its sub-opcode after a
// prefix byte) in the boards' cost model (abi.InstrClass).
func classOf(op byte, sub uint32) abi.InstrClass {
	switch {
	case op == 0x02, op == 0x03, op == 0x05, op == 0x0B: // block loop else end
		return abi.InstrBlock
	case op == 0x00, op == 0x04, op >= 0x0C && op <= 0x0F: // unreachable if br br_if br_table return
		return abi.InstrBranch
	case op == 0x10:
		return abi.InstrCall
	case op == 0x11:
		return abi.InstrCallIndirect
	case op >= 0x28 && op <= 0x3E: // loads and stores, of floats too
		return abi.InstrMemory
	case op == 0x40: // memory.grow
		return abi.InstrBulk
	case op >= 0x5B && op <= 0x60, op >= 0x8B && op <= 0x98: // f32 comparisons, arithmetic
		return abi.InstrFloat32
	case op >= 0x61 && op <= 0x66, op >= 0x99 && op <= 0xA6: // f64
		return abi.InstrFloat64
	case op >= 0x6D && op <= 0x70, op >= 0x7F && op <= 0x82: // div_s div_u rem_s rem_u
		return abi.InstrDivide
	case op >= 0xA7 && op <= 0xBB:
		return conversionClass(op)
	case op == 0xFC && sub <= 7: // saturating truncations
		if sub == 2 || sub == 3 || sub == 6 || sub == 7 {
			return abi.InstrFloat64
		}
		return abi.InstrFloat32
	case op == 0xFC: // bulk memory and tables
		return abi.InstrBulk
	}
	return abi.InstrPlain
}

// conversionClass classes the conversions 0xA7 to 0xBB by the float type
// they involve; the reinterpretations after them move bits only.
func conversionClass(op byte) abi.InstrClass {
	switch op {
	case 0xA7, 0xAC, 0xAD: // i32.wrap_i64, i64.extend_i32_s/u
		return abi.InstrPlain
	case 0xAA, 0xAB, 0xB0, 0xB1, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xBB: // from or to f64
		return abi.InstrFloat64
	}
	return abi.InstrFloat32
}

package modcheck

import (
	"errors"
	"fmt"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
)

// The module budgets (abi.FunctionLocalsMax and the constants beside it;
// docs/boards.md, "Module budgets") are counted by the feature scan as it
// reads, each before what it counts is walked or allocated: a count is
// compared when its section gives it, a function's size before its body is
// read, its locals as a sum of the declared groups (never one by one). So
// refusing a module costs a node one pass over its bytes and a few words
// of memory, whatever it declares; and a module within the budgets costs
// wazero a bounded time and memory to compile.

// overBudget is one budget a module exceeds.
type overBudget struct {
	at    place
	what  string // "declares 20000000 locals, over", "nests blocks deeper than"
	limit string // the constant of package abi, e.g. "FunctionLocalsMax"
	max   int64
}

// errOverBudget ends the reading of a function, or of the module when the
// budget is the module's: what follows is not read.
var errOverBudget = errors.New("over a module budget")

// maxOverBudget bounds how many functions over their budgets one error
// names.
const maxOverBudget = 5

// The budgets, by their constant in package abi.
const (
	budgetLocals    = "FunctionLocalsMax"
	budgetAllLocals = "ModuleLocalsMax"
	budgetBody      = "FunctionBytesMax"
	budgetCode      = "CodeBytesMax"
	budgetDepth     = "BlockDepthMax"
	budgetBrTable   = "BrTableTargetsMax"
	budgetWeight    = "CompileWeightMax"
	budgetFunctions = "FunctionsMax"
	budgetGlobals   = "GlobalsMax"
	budgetTypes     = "TypesMax"
	budgetTable     = "TableEntriesMax"
	budgetSections  = "SectionsMax"
)

// figures are what a module reaches of each budget: the largest of one
// function, or the module's total. The tests compare real pods with them.
type figures struct {
	locals, bodyBytes, depth, brTable    uint64 // the largest in one function
	functions, globals, types, codeBytes uint64
	tableEntries, totalLocals, weight    uint64
	sections                             uint64
	heaviest                             place // the function of most weight
	heaviestWeight                       uint64
	blocks, brTableWeight                uint64 // of the function being read
}

// over records that at exceeds a budget and fails r, which ends what r
// reads.
func (s *scanner) over(r *wasmbin.Reader, at place, what, limit string, max int64) {
	if len(s.overBudget) < maxOverBudget || at.kind != "function" {
		s.overBudget = append(s.overBudget, overBudget{at, what, limit, max})
	} else {
		s.overMore++
	}
	if r.Err() == nil {
		r.Stop(errOverBudget)
	}
}

// count checks a module-wide count against its budget.
func (s *scanner) count(r *wasmbin.Reader, n uint64, what, limit string, max int64) {
	if n > uint64(max) {
		s.over(r, place{kind: "module"}, fmt.Sprintf("has %d %s, over", n, what), limit, max)
	}
}

// budgetProblems words each budget exceeded, and lists their constants.
func (fs *featureScan) budgetProblems() (problems, limits []string) {
	for _, o := range fs.overBudget {
		problems = append(problems, fmt.Sprintf("%s %s the limit of %d (abi.%s); the boards' interpreter would not load it (see docs/boards.md)",
			fs.describe(o.at), o.what, o.max, o.limit))
		limits = append(limits, o.limit)
	}
	if fs.overMore > 0 {
		problems = append(problems, fmt.Sprintf("and %d more functions over their budgets", fs.overMore))
	}
	return problems, limits
}

// functionBody reads one function's body, size bytes that the code
// section's reader r has moved past: its size and locals against their
// budgets, then its code, then the module's compile weight.
func (s *scanner) functionBody(r, body *wasmbin.Reader, at place, size uint32) {
	s.fig.bodyBytes = max(s.fig.bodyBytes, uint64(size))
	if size > abi.FunctionBytesMax {
		s.over(body, at, fmt.Sprintf("is %d bytes long, over", size), budgetBody, abi.FunctionBytesMax)
		return
	}
	// A sum of the groups' counts: a group of 20 million locals is five
	// bytes, and costs no more to count. At most FunctionBytesMax groups
	// of at most 2^32-1 each: the sum cannot overflow.
	var locals uint64
	for groups := body.U32(); groups > 0 && body.Err() == nil; groups-- {
		locals += uint64(body.U32())
		s.valType(body, at, "local", false)
	}
	s.fig.locals = max(s.fig.locals, locals)
	if locals > abi.FunctionLocalsMax {
		s.over(body, at, fmt.Sprintf("declares %d locals, over", locals), budgetLocals, abi.FunctionLocalsMax)
		return
	}
	s.fig.totalLocals += locals
	if s.fig.totalLocals > abi.ModuleLocalsMax {
		s.over(r, place{kind: "module"}, fmt.Sprintf("declares %d locals in its functions up to %s, over",
			s.fig.totalLocals, s.describe(at)), budgetAllLocals, abi.ModuleLocalsMax)
		body.Stop(errOverBudget)
		return
	}
	s.fig.blocks, s.fig.brTableWeight = 0, 0
	if s.lay != nil {
		s.lay.Bodies = append(s.lay.Bodies, Body{Start: body.Start(), Code: body.Offset(), End: body.End()})
	}
	s.inBody = true
	s.expr(body, at)
	s.inBody = false
	if body.Err() != nil { // over a budget of its own, or not decodable
		return
	}
	// At most FunctionBytesMax blocks and BrTableTargetsMax² per byte:
	// neither square nor sum can overflow.
	w := s.fig.blocks*s.fig.blocks + s.fig.brTableWeight
	if w > s.fig.heaviestWeight {
		s.fig.heaviest, s.fig.heaviestWeight = at, w
	}
	s.fig.weight += w
	if s.fig.weight > abi.CompileWeightMax {
		s.over(r, place{kind: "module"}, fmt.Sprintf("weighs %d to compile up to %s (%s weighs %d), over",
			s.fig.weight, s.describe(at), s.describe(s.fig.heaviest), s.fig.heaviestWeight), budgetWeight, abi.CompileWeightMax)
		body.Stop(errOverBudget)
	}
}

// enterBlock counts a block, loop or if (weight: an if counts twice, for
// its two arms) and checks the depth it opens.
func (s *scanner) enterBlock(r *wasmbin.Reader, at place, depth int, isIf bool) bool {
	s.fig.blocks++
	if isIf {
		s.fig.blocks++
	}
	s.fig.depth = max(s.fig.depth, uint64(depth))
	if depth > abi.BlockDepthMax {
		s.over(r, at, "nests blocks deeper than", budgetDepth, abi.BlockDepthMax)
		return false
	}
	return true
}

// brTableWithin checks the targets of a br_table before they are read.
func (s *scanner) brTableWithin(r *wasmbin.Reader, at place, targets uint32) bool {
	s.fig.brTable = max(s.fig.brTable, uint64(targets))
	if targets > abi.BrTableTargetsMax {
		s.over(r, at, fmt.Sprintf("has a br_table of %d targets, over", targets), budgetBrTable, abi.BrTableTargetsMax)
		return false
	}
	s.fig.brTableWeight += uint64(targets) * uint64(targets)
	return true
}

// tableSize checks the initial size of a table, which a node allocates
// when the module starts.
func (s *scanner) tableSize(r *wasmbin.Reader, at place, entries uint64) {
	s.fig.tableEntries = max(s.fig.tableEntries, entries)
	if entries > abi.TableEntriesMax {
		s.over(r, at, fmt.Sprintf("starts with %d entries, over", entries), budgetTable, abi.TableEntriesMax)
	}
}

package cli

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// The numeric flags refuse a value out of range as it is parsed, so that
// a bad value is a usage mistake (exit 2) whose message names the flag:
// `invalid argument "0" for "--nodes" flag: must be at least 1`.

// maxPort is the largest TCP port; 0 asks the system for a free one.
const maxPort = 65535

// boundedInt is an int flag within [min, max].
type boundedInt struct {
	p        *int
	min, max int
}

// intFlag adds an int flag that must be within [min, max].
func intFlag(f *pflag.FlagSet, p *int, name string, value, min, max int, usage string) {
	*p = value
	f.Var(&boundedInt{p: p, min: min, max: max}, name, usage)
}

// portFlag adds a TCP port flag: 1 to 65535, or 0 for any free port.
func portFlag(f *pflag.FlagSet, p *int, name string, value int, usage string) {
	intFlag(f, p, name, value, 0, maxPort, usage)
}

func (b *boundedInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return fmt.Errorf("must be a whole number")
	case n < b.min:
		return fmt.Errorf("must be at least %d", b.min)
	case n > b.max:
		return fmt.Errorf("must be at most %d", b.max)
	}
	*b.p = n
	return nil
}

func (b *boundedInt) String() string { return strconv.Itoa(*b.p) }
func (b *boundedInt) Type() string   { return "int" }

// positiveDuration is a duration flag above zero.
type positiveDuration struct{ p *time.Duration }

// durationFlag adds a duration flag that must be above zero.
func durationFlag(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var(&positiveDuration{p}, name, usage)
}

func (d *positiveDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("must be a duration (e.g. 10s)")
	case v <= 0:
		return fmt.Errorf("must be above zero")
	}
	*d.p = v
	return nil
}

func (d *positiveDuration) String() string { return d.p.String() }
func (d *positiveDuration) Type() string   { return "duration" }

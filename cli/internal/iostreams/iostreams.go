// Package iostreams holds the streams a kube32 command reads and writes and
// whether each is a terminal, so that the CLI alone decides how its output
// looks: aligned tables and progress lines for a person, plain output for a
// pipe.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams of a command. The zero value of the terminal
// flags says "not a terminal", so streams built from a struct literal print
// as when piped.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool
}

// System returns the process's own streams, each marked a terminal or not.
func System() IOStreams {
	return IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		inTTY: isTerminal(os.Stdin), outTTY: isTerminal(os.Stdout), errTTY: isTerminal(os.Stderr),
	}
}

// Test returns streams on fresh buffers (standard input, output and error),
// none of them a terminal until the test says so with the Set methods.
func Test() (IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// IsStdinTTY reports whether In is a terminal.
func (s IOStreams) IsStdinTTY() bool { return s.inTTY }

// IsStdoutTTY reports whether Out is a terminal.
func (s IOStreams) IsStdoutTTY() bool { return s.outTTY }

// IsStderrTTY reports whether ErrOut is a terminal.
func (s IOStreams) IsStderrTTY() bool { return s.errTTY }

// SetStdinTTY marks In a terminal or not.
func (s *IOStreams) SetStdinTTY(tty bool) { s.inTTY = tty }

// SetStdoutTTY marks Out a terminal or not.
func (s *IOStreams) SetStdoutTTY(tty bool) { s.outTTY = tty }

// SetStderrTTY marks ErrOut a terminal or not.
func (s *IOStreams) SetStderrTTY(tty bool) { s.errTTY = tty }

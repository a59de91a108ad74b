package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// Exit codes, as docs/cli.md lists them.
const (
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // a mistake on the command line
)

// exitCode maps an error of Execute to the exit code. Cobra returns plain
// errors for its usage mistakes (an unknown command, a wrong argument count,
// a missing required flag), so every error that does not come out of a
// command's RunE is one; out of RunE, only a usageError is.
func exitCode(err error) int {
	var usage *usageError
	var failed *runError
	if errors.As(err, &usage) || !errors.As(err, &failed) {
		return exitUsage
	}
	return exitFailure
}

// runError is an error returned by a command's RunE.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// markRunErrors wraps the RunE of cmd and its subcommands so that their
// errors are told apart from cobra's own.
func markRunErrors(cmd *cobra.Command) {
	if runE := cmd.RunE; runE != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := runE(c, args); err != nil {
				return &runError{err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markRunErrors(sub)
	}
}

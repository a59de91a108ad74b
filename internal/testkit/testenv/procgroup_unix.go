//go:build unix

package testenv

import (
	"os/exec"
	"syscall"
	"time"
)

// ownGroup starts cmd in a process group of its own, and makes cancelling
// its context kill the whole group.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

func killGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// waitGroupGone waits, a few seconds at most, until no process of cmd's
// group is left.
func waitGroupGone(cmd *exec.Cmd) {
	for range 100 {
		if syscall.Kill(-cmd.Process.Pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

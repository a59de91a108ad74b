package testk8s

import (
	"os/exec"
	"syscall"
)

// DieWithTest makes cmd's process get SIGKILL when the test process dies,
// however it dies (a timeout's panic, SIGKILL): a control plane, or a node
// of it, left running would hold its ports and its memory.
func DieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

package testk8s

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes cmd's process get SIGKILL when the test process dies,
// however it dies (a timeout's panic, SIGKILL): a control plane left
// running would hold its ports and half a gigabyte.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

//go:build !linux

package testk8s

import "os/exec"

// dieWithTest: elsewhere than Linux, the programs are killed by the test's
// cleanup only.
func dieWithTest(*exec.Cmd) {}

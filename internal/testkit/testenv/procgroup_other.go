//go:build !unix

package testenv

import "os/exec"

func ownGroup(*exec.Cmd)            {}
func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
func waitGroupGone(*exec.Cmd)       {}

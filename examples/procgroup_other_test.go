//go:build !unix

package examples_test

import "os/exec"

func ownGroup(*exec.Cmd)      {}
func waitGroupGone(*exec.Cmd) {}

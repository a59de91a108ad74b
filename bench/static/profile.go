package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profilePath is -cpuprofile: where the CPU profile of the kube32 run goes.
var profilePath string

// startProfile starts the CPU profile when on and asked for; the returned
// function stops it.
func startProfile(on bool) func() {
	if !on || profilePath == "" {
		return func() {}
	}
	f, err := os.Create(profilePath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/static: cpuprofile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "bench/static: cpuprofile:", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profile starts the CPU profile -cpuprofile asks for; the returned
// function stops it and writes the allocation profile -memprofile asks
// for. Both cover the whole run, baselines too: look at the API server's
// share with pprof -focus apiserver.
func profile(cpuPath, memPath string) func() {
	stop := func() {}
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/api: cpuprofile:", err)
		} else {
			stop = func() { pprof.StopCPUProfile(); f.Close() }
		}
	}
	return func() {
		stop()
		if memPath == "" {
			return
		}
		f, err := os.Create(memPath)
		if err == nil {
			runtime.GC()
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/api: memprofile:", err)
		}
	}
}

package load

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// Profile starts a CPU profile into cpuPath (none when "") and returns the
// function that stops it and writes the allocation profile into memPath
// (none when ""), so that a bench profiles kube32's side of a run only.
func Profile(cpuPath, memPath string) (stop func() error, err error) {
	var cpu *os.File
	if cpuPath != "" {
		if cpu, err = os.Create(cpuPath); err != nil {
			return nil, err
		}
		if err = pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, err
		}
	}
	if memPath != "" {
		runtime.MemProfileRate = 64 << 10
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return err
			}
		}
		if memPath == "" {
			return nil
		}
		f, err := os.Create(memPath)
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.Lookup("allocs").WriteTo(f, 0)
	}, nil
}

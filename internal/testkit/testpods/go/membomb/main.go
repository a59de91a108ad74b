// Command membomb is a Go test pod: /bomb allocates until the Go runtime
// runs out of memory; any other path answers "hello" and how many requests
// this instance has served, so a test sees a fresh instance.
package main

import (
	"strconv"

	k32 "github.com/kube32/kube32/sdk/go"
)

var (
	kept   [][]byte // reachable, so the collector cannot free it
	served int
)

func init() {
	k32.HandleFunc(func(w k32.ResponseWriter, r *k32.Request) {
		served++
		if r.Path == "/bomb" {
			for {
				b := make([]byte, 256<<10)
				for i := range b {
					b[i] = byte(i)
				}
				kept = append(kept, b)
			}
		}
		w.Write([]byte("hello " + strconv.Itoa(served) + "\n"))
	})
}

func main() {}

package main

import k32 "github.com/kube32/kube32/sdk/go"

func init() {
	k32.HandleFunc(func(w k32.ResponseWriter, r *k32.Request) {
		w.Write([]byte("hello from go\n"))
	})
}

func main() {}

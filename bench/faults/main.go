// Command faults runs hostile clients against one `kube32 serve` (the
// built-in demo) and prints what each costs.
//
//	go run ./bench/faults [-idle 3000] [-slow 4]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/cli"
)

func main() {
	idle := flag.Int("idle", 3000, "idle keep-alive connections to open")
	slow := flag.Int("slow", 4, "slow request bodies to trickle")
	flag.Parse()
	if err := run(*idle, *slow); err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(1)
	}
}

func run(idle, slow int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cacheDir, err := os.MkdirTemp("", "kube32-faults-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cacheDir)
	c, err := load.Serve(ctx, cli.ServeOptions{
		IO:       cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: io.Discard},
		CacheDir: cacheDir,
	})
	if err != nil {
		return err
	}
	fmt.Printf("%-60s %s\n", "fault", "kube32")
	d, err := runIdleConns(c.IngressURL(), "/echo/hello", idle)
	if err != nil {
		return err
	}
	fmt.Printf("%-60s %v\n", fmt.Sprintf("a new request while %d idle connections are open", idle), d)
	d, err = runSlowBodies(c.IngressURL(), "/echo/hello", "hello", slow)
	if err != nil {
		return err
	}
	fmt.Printf("%-60s %v\n", fmt.Sprintf("a normal request while %d slow bodies trickle (median)", slow), d)
	return nil
}

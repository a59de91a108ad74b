// Command kube32 is the kube32 SDK's CLI: new, build, serve and flash.
package main

import (
	"os"

	"github.com/kube32/kube32/cli"
)

func main() { os.Exit(cli.Main()) }

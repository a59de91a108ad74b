package cli

import (
	"math"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/spf13/pflag"

	"github.com/kube32/kube32/abi/modcheck"
)

// nodeFlags are the flags of a node that serve (for its control plane and
// workers) and node --join share, declared here once so that their names,
// defaults and help never drift apart (docs/cli.md lists them). Each field
// points at the option the flag sets.
type nodeFlags struct {
	token, tokenFile *string
	// tokenUsage is what --token's help says before the shared advice:
	// serve requires the token, node --join presents it.
	tokenUsage     string
	podPort        *int
	handlerTimeout *time.Duration
	// defaultMemoryLimit and maxConnections are the limits every node
	// applies: the memory cap of a container without
	// resources.limits.memory, and the cap on open connections.
	defaultMemoryLimit *string
	maxConnections     *int
}

// add adds the shared flags to f.
func (n nodeFlags) add(f *pflag.FlagSet) {
	addTokenFlags(f, n.token, n.tokenFile, n.tokenUsage)
	portFlag(f, n.podPort, "pod-port", 7000, "port of the node's pod HTTP server")
	durationFlag(f, n.handlerTimeout, "handler-timeout", 10*time.Second, "deadline of one k32_handle call; a pod past it is restarted")
	f.StringVar(n.defaultMemoryLimit, "default-memory-limit", modcheck.FormatBytes(host.DefaultMemoryLimit),
		"memory cap of a container without resources.limits.memory (a quantity; the default is the PSRAM of the largest board)")
	intFlag(f, n.maxConnections, "max-connections", 0, 0, math.MaxInt32, "connections open at once over every port; at the cap the longest-idle keep-alive one is closed (default half the open-file limit, at most 4096)")
}

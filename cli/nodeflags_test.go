package cli

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/cli/internal/iostreams"
)

// TestServeAndNodeShareNodeFlags checks that every flag nodeFlags declares
// is on both serve and node --join with the same type, default and help
// (--token's help opens with each command's own words), so that a node
// joined by hand behaves as a worker of serve --nodes (docs/cli.md).
func TestServeAndNodeShareNodeFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	serve, node := newServeCommand(ios).Flags(), newNodeCommand(ios).Flags()
	for _, name := range []string{"token-file", "pod-port", "handler-timeout", "default-memory-limit", "max-connections", "cache-dir"} {
		s, n := serve.Lookup(name), node.Lookup(name)
		if s == nil || n == nil {
			t.Errorf("--%s: on serve %v, on node %v; want both", name, s != nil, n != nil)
			continue
		}
		if s.Value.Type() != n.Value.Type() || s.DefValue != n.DefValue || s.Usage != n.Usage {
			t.Errorf("--%s differs:\n serve %s %q %q\n node  %s %q %q", name,
				s.Value.Type(), s.DefValue, s.Usage, n.Value.Type(), n.DefValue, n.Usage)
		}
	}
	s, n := serve.Lookup("token"), node.Lookup("token")
	if s == nil || n == nil {
		t.Fatalf("--token: on serve %v, on node %v; want both", s != nil, n != nil)
	}
	const advice = "; visible in the process list: prefer --token-file or $" + TokenEnv
	if s.DefValue != "" || n.DefValue != "" || !strings.HasSuffix(s.Usage, advice) || !strings.HasSuffix(n.Usage, advice) {
		t.Errorf("--token: serve default %q help %q, node default %q help %q; want no default and both ending %q",
			s.DefValue, s.Usage, n.DefValue, n.Usage, advice)
	}
}

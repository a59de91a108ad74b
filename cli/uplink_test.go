package cli_test

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// TestUplinkVerb: serve --uplink down starts the uplink down, and
// `kube32 uplink` reads and changes it; only the change is logged.
func TestUplinkVerb(t *testing.T) {
	c, out := testserve.Serve(t, "--uplink", "down", "--token", "uplink-token")
	if c.UplinkUp() {
		t.Fatal("serve --uplink down: the uplink is up")
	}
	t.Setenv(cli.TokenEnv, "") // the token is the flag's alone
	uplink := func(set ...string) string {
		t.Helper()
		code, out := testserve.Run(t, append(append([]string{"uplink"}, set...), "--api", c.APIURL(), "--token", "uplink-token")...)
		if code != 0 {
			t.Fatalf("kube32 uplink %v: exit %d: %s", set, code, out)
		}
		return strings.TrimSpace(out)
	}
	if strings.Contains(out.String(), "[NET] uplink") {
		t.Errorf("serve --uplink down logged a [NET] uplink line at start:\n%s", out)
	}
	if got := uplink(); got != "uplink down" {
		t.Errorf("kube32 uplink = %q, want uplink down", got)
	}
	if got := uplink("up"); got != "uplink up" || !c.UplinkUp() {
		t.Errorf("kube32 uplink up = %q, up %v", got, c.UplinkUp())
	}
	if !strings.Contains(out.String(), "[NET] uplink up: NAT from the cluster AP on, DNS ") {
		t.Errorf("serve's output has no [NET] uplink up line:\n%s", out)
	}
	code, said := testserve.Run(t, "uplink", "down", "--api", c.APIURL())
	if code == 0 || !strings.Contains(said, "401") || !c.UplinkUp() {
		t.Errorf("kube32 uplink down without the token: exit %d: %s, up %v", code, said, c.UplinkUp())
	}
}

func TestServeRefusesABadUplink(t *testing.T) {
	err := testserve.Try(t, "--uplink", "sideways")
	if err == nil || !strings.Contains(err.Error(), `--uplink "sideways": want up or down`) {
		t.Errorf("serve --uplink sideways: %v", err)
	}
}

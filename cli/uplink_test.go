package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/testserve"
)

// TestUplinkVerb: serve --uplink down starts the uplink down, and
// `kube32 uplink` reads and changes it; only the change is logged.
func TestUplinkVerb(t *testing.T) {
	c, out := testserve.Serve(t, cli.ServeOptions{Uplink: "down", Token: "uplink-token"})
	if c.UplinkUp() {
		t.Fatal("serve --uplink down: the uplink is up")
	}
	uplink := func(set string) string {
		t.Helper()
		var buf bytes.Buffer
		err := cli.RunUplink(context.Background(), cli.UplinkOptions{IO: cli.IOStreams{Out: &buf}, API: c.APIURL(), Token: "uplink-token", Set: set})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(buf.String())
	}
	if strings.Contains(out.String(), "[NET] uplink") {
		t.Errorf("serve --uplink down logged a [NET] uplink line at start:\n%s", out)
	}
	if got := uplink(""); got != "uplink down" {
		t.Errorf("kube32 uplink = %q, want uplink down", got)
	}
	if got := uplink("up"); got != "uplink up" || !c.UplinkUp() {
		t.Errorf("kube32 uplink up = %q, up %v", got, c.UplinkUp())
	}
	if !strings.Contains(out.String(), "[NET] uplink up: NAT from the cluster AP on, DNS ") {
		t.Errorf("serve's output has no [NET] uplink up line:\n%s", out)
	}
	err := cli.RunUplink(context.Background(), cli.UplinkOptions{IO: cli.IOStreams{Out: &bytes.Buffer{}}, API: c.APIURL(), Set: "down"})
	if err == nil || !strings.Contains(err.Error(), "401") || !c.UplinkUp() {
		t.Errorf("kube32 uplink down without the token: %v, up %v", err, c.UplinkUp())
	}
}

func TestServeRefusesABadUplink(t *testing.T) {
	err := cli.RunServe(context.Background(), cli.ServeOptions{Uplink: "sideways"})
	if err == nil || !strings.Contains(err.Error(), `--uplink "sideways": want up or down`) {
		t.Errorf("serve --uplink sideways: %v", err)
	}
}

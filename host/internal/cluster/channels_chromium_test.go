package cluster

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestChannelsInChromium opens the chat pod's page in headless Chromium: its
// EventSource connects to the Ingress's event stream, publishes through the
// pod once the first presence event arrives, and shows the "joined" event
// the stream then delivers.
func TestChannelsInChromium(t *testing.T) {
	testenv.Tool(t, "chromium") // before the cluster starts
	objs := []manifest.Object{chat("chat-cp", ControlPlaneName, "room", true), svc("chat-cp"), chatIngress()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "chat")), Objects: objs}, "chat-cp")
	var dom string
	for attempt := 1; attempt <= 3; attempt++ {
		cmd, _ := testenv.Chromium(ctx, t, "--virtual-time-budget=10000", "--dump-dom", c.IngressURL()+"/chat/page")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, stderr.String())
		}
		dom = stdout.String()
		if strings.Contains(dom, `<p id="s">got browser</p>`) {
			return
		}
		t.Logf("load %d: the event has not arrived yet", attempt)
	}
	t.Errorf("the page never showed the joined event:\n%s", dom)
}

package cluster

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/manifest"
)

// BenchmarkDeadWorker measures, with the default lease renewal and grace
// period, what a SIGKILL of a joined worker costs: the share of ingress
// requests that fail between the kill and its Node leaving Ready (a
// Service with a pod on the worker and one on the control plane), and how
// long that takes. Run it once: go test -run - -bench DeadWorker
// -benchtime 1x ./host/cluster (about a minute).
func BenchmarkDeadWorker(b *testing.B) {
	images := fixtureImages(b, "relay")
	bin := buildKube32(b)
	const ip, ext = "127.0.0.12", "ext"
	objs := []manifest.Object{relay("web-cp", "web", ControlPlaneName), relay("web-ext", "web", ext), svc("web"), webIngress()}
	c, err := Start(context.Background(), Options{Images: os.DirFS(images), Objects: objs, HandlerTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	for range b.N {
		worker := joinNode(b, bin, c.APIURL(), "", ip, ext, images)
		waitReadyPods(b, c, "web-cp", "web-ext")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		if err := c.WaitReady(ctx); err != nil {
			b.Fatal(err)
		}
		cancel()
		client := &http.Client{Timeout: 10 * time.Second}
		worker.kill()
		killed := time.Now()
		var sent, failed int
		for {
			if cond, _ := nodeReady(c.Store, ext); cond.Status != corev1.ConditionTrue {
				break
			}
			resp, err := client.Get(c.IngressURL() + "/")
			sent++
			if err != nil || resp.StatusCode != http.StatusOK {
				failed++
			}
			if resp != nil {
				resp.Body.Close()
			}
			time.Sleep(10 * time.Millisecond)
		}
		notReady := time.Since(killed)
		b.ReportMetric(100*float64(failed)/float64(sent), "%failed")
		b.ReportMetric(float64(sent), "requests")
		b.ReportMetric(notReady.Seconds(), "s-to-NotReady")
	}
}

package apiserver_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// TestVersionsAgreeWithTheirOneHome checks that every place a client reads
// kube32's versions from, through client-go as kubectl reads them, says what
// abi.KubernetesVersion and pod.WazeroVersion say: GET /version, the info of
// both OpenAPI documents, and the Node's kubelet and container runtime.
func TestVersionsAgreeWithTheirOneHome(t *testing.T) {
	e := startCluster(t, "")
	client, err := kubernetes.NewForConfig(&rest.Config{Host: e.apiURL})
	if err != nil {
		t.Fatal(err)
	}
	dc := client.Discovery()

	v, err := dc.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.Major != abi.KubernetesMajor || v.Minor != abi.KubernetesMinor || v.GitVersion != abi.KubernetesVersion {
		t.Errorf("/version says major %q minor %q gitVersion %q, want %q %q %q",
			v.Major, v.Minor, v.GitVersion, abi.KubernetesMajor, abi.KubernetesMinor, abi.KubernetesVersion)
	}
	if v.GoVersion != runtime.Version() {
		t.Errorf("/version goVersion %q, want the Go the server was built with, %q", v.GoVersion, runtime.Version())
	}
	if want := "v" + v.Major + "." + v.Minor + "."; !strings.HasPrefix(v.GitVersion, want) {
		t.Errorf("/version gitVersion %q does not start with its major and minor, %q", v.GitVersion, want)
	}

	v2, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	if got := v2.GetInfo().GetVersion(); got != abi.KubernetesVersion {
		t.Errorf("OpenAPI v2 info.version %q, want %q", got, abi.KubernetesVersion)
	}
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	gv, ok := paths["api/v1"]
	if !ok {
		t.Fatalf("OpenAPI v3 lists no api/v1 among %d paths", len(paths))
	}
	data, err := gv.Schema("application/json")
	if err != nil {
		t.Fatal(err)
	}
	var v3 struct {
		Info struct{ Version string } `json:"info"`
	}
	if err := json.Unmarshal(data, &v3); err != nil {
		t.Fatal(err)
	}
	if v3.Info.Version != abi.KubernetesVersion {
		t.Errorf("OpenAPI v3 api/v1 info.version %q, want %q", v3.Info.Version, abi.KubernetesVersion)
	}

	nodes, err := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) == 0 {
		t.Fatal("the cluster has no Node")
	}
	// A test binary records no dependencies, so here this is "unknown";
	// cli's TestVersion checks a real binary's.
	wazero := pod.WazeroVersion()
	for _, n := range nodes.Items {
		info := n.Status.NodeInfo
		if info.KubeletVersion != abi.KubernetesVersion {
			t.Errorf("node %s kubeletVersion %q, want %q", n.Name, info.KubeletVersion, abi.KubernetesVersion)
		}
		if want := "wazero://" + wazero; info.ContainerRuntimeVersion != want {
			t.Errorf("node %s containerRuntimeVersion %q, want %q", n.Name, info.ContainerRuntimeVersion, want)
		}
	}
}

package cli_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// A `kubectl get pods -w` started before an edit stays connected while
// serve --watch rebuilds the pod and restarts it: the same kubectl process
// prints the pod's new restart count, and is still watching afterwards
// (kubectl ends a watch the server closes).
func TestServeWatchKeepsKubectlWatch(t *testing.T) {
	testenv.Tool(t, "clang")
	kubectl := testenv.Tool(t, "kubectl")
	dir := filepath.Join(t.TempDir(), "live")
	writeWatchProject(t, dir, "<p>page</p>\n", "")
	config := filepath.Join(t.TempDir(), "config")
	c, _ := serve(t, dir, "--watch", "--kubeconfig", config, "--context", "live")
	testenv.Eventually(t, "the first answer", func() bool {
		_, _, body := get(t, c.IngressURL()+"/api")
		return body == "one GREETING"
	})

	cmd := exec.Command(kubectl, "--cache-dir", t.TempDir(), "--context", "live", "get", "pods", "-w",
		"-o", "custom-columns=NAME:.metadata.name,RESTARTS:.status.containerStatuses[0].restartCount")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+config)
	cmd.Stderr = &strings.Builder{}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	printed := func(line string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range lines {
			if strings.Join(strings.Fields(l), " ") == line {
				return true
			}
		}
		return false
	}
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			mu.Lock()
			t.Logf("kubectl's output:\n%s\n%s", strings.Join(lines, "\n"), cmd.Stderr)
			mu.Unlock()
		}
	})
	testenv.Eventually(t, "kubectl listing the pod", func() bool { return printed("answer 0") })

	if err := os.WriteFile(filepath.Join(dir, "pods/answer/main.c"), []byte(watchAnswer("two")), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the same kubectl printing the restart", func() bool { return printed("answer 1") })
	select {
	case err := <-exited:
		exited <- err
		t.Fatalf("kubectl's watch ended with the swap: %v", err)
	default:
	}
	// Still the same watch: the new answer is served, kubectl is running.
	testenv.Eventually(t, "the new module's answer", func() bool {
		_, _, body := get(t, c.IngressURL()+"/api")
		return body == "two GREETING"
	})
	select {
	case err := <-exited:
		exited <- err
		t.Fatalf("kubectl's watch ended after the swap: %v", err)
	default:
	}
}

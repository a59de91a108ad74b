package cli_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// The lines of internal/testkit/testpods/c/loglines.c as serve and kubectl logs
// must show them: every control character escaped, the k32_log call one
// line, each line of the stdout write one line.
const (
	escapedK32Line = `k32 \x1b[31mred\x1b[0m osc52=\x1b]52;c;SGVsbG8=\a cr=\roverwritten nul=\x00end del=\x7f ` +
		`c1=\u009b2J bad=\xff café tab=` + "\t" + `x\n[default/other] forged by k32_log`
	escapedOutLine = `out \x1b[2Jcleared cr=\rback`
)

// "A pod's log cannot forge or inject" (docs/serve.md, "Hostile clients"):
// a pod logs ESC and OSC 52 sequences, BEL, CR, NUL, DEL, a C1 control, an
// invalid byte and a newline followed by "[default/other] ...", with
// k32_log and with one write to stdout. serve's output and `kubectl logs`
// (a real kubectl) show each escaped on one line, non-ASCII text intact,
// and no line of serve's output poses as the pod default/other.
func TestPodLogsCannotForgeLinesOrInjectControls(t *testing.T) {
	testenv.Tool(t, "clang")
	kubectl := testenv.Tool(t, "kubectl")
	source, err := os.ReadFile(filepath.Join(testpods.Dir, "loglines.c"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "logs")
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml":      "name: logs\nmanifests: [app.yaml]\npods:\n  - name: logs\n    language: c\n    source: pods/logs\n",
		"pods/logs/main.c": string(source),
		"app.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: logs}\nspec:\n" +
			"  containers: [{name: logs, image: wasm://embedded/logs, resources: {limits: {memory: 64Ki}}}]\n",
	})
	config := filepath.Join(t.TempDir(), "config")
	c, out := serve(t, dir, "--kubeconfig", config, "--context", "logs")

	req, _ := http.NewRequest(http.MethodGet, c.PodURL()+"/", nil)
	req.Header.Set("X-Kube32-Pod", "default/logs")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "logged" {
		t.Fatalf("the pod answered %d %q", resp.StatusCode, body)
	}
	testenv.Eventually(t, "serve printing the pod's lines", func() bool {
		return strings.Contains(out.String(), "[default/logs] "+escapedOutLine+"\n")
	})
	printed := out.String()
	testpods.Contains(t, printed,
		"\n[default/logs] "+escapedK32Line+"\n",
		"\n[default/logs] "+escapedOutLine+"\n",
		"\n[default/logs] [default/other] forged by stdout\n")
	checkNoControls(t, "serve's output", printed)
	for _, line := range strings.Split(printed, "\n") {
		if strings.HasPrefix(line, "[default/other]") {
			t.Errorf("serve printed a line posing as pod default/other: %q", line)
		}
	}

	cmd := exec.Command(kubectl, "--cache-dir", t.TempDir(), "--context", "logs", "logs", "logs")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+config)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	logs, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl logs: %v\n%s", err, stderr.String())
	}
	testpods.Contains(t, "\n"+string(logs), "\n"+escapedK32Line+"\n", "\n"+escapedOutLine+"\n")
	checkNoControls(t, "kubectl logs", string(logs))
	if strings.Contains("\n"+string(logs), "\n[default/other] forged by k32_log") {
		t.Errorf("kubectl logs split the k32_log call into lines:\n%s", logs)
	}
}

// checkNoControls fails t when text holds a control character other than
// the newlines between lines and tabs.
func checkNoControls(t *testing.T, what, text string) {
	t.Helper()
	for i, r := range text {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || r == 0xfffd {
			t.Errorf("%s holds %U at byte %d: %q", what, r, i, text[max(0, i-40):min(len(text), i+40)])
			return
		}
	}
}

package cli_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// TestTokenFileMistakesNameTheFile (docs/cli.md, "The cluster token"): an
// unreadable or empty --token-file is an error naming it, and --token with
// --token-file a usage mistake, before anything starts.
func TestTokenFileMistakesNameTheFile(t *testing.T) {
	dir := t.TempDir()
	missing, empty := filepath.Join(dir, "missing"), filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n  \nsecond-line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"serve"}, {"node", "--join", "http://127.0.0.1:1"}, {"uplink"}} {
		for _, c := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"--token-file", missing}, 1, "--token-file: open " + missing + ": no such file or directory"},
			{[]string{"--token-file", empty}, 1, "--token-file " + empty + ": its first line holds no token"},
			{[]string{"--token", "t", "--token-file", empty}, 2, "--token and --token-file: give one of them"},
		} {
			args := append(append([]string{}, cmd...), c.args...)
			if code, out := testserve.Run(t, args...); code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("kube32 %s: exit %d, output %q; want %d and %q", strings.Join(args, " "), code, out, c.code, c.want)
			}
		}
	}
}

// TestTokenFromFileOrEnvIsNotInArgv: kube32 node, a real process, joins a
// serve that requires a token with the token from --token-file, then from
// KUBE32_TOKEN, and neither process has the token in its command line,
// which every user of the machine can read.
func TestTokenFromFileOrEnvIsNotInArgv(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc: cannot read a process's command line")
	}
	const token = "argv-test-token-6f1c"
	bin := kube32Binary(t) // from cli/, before the test leaves it
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--token", token)
	images := t.TempDir()
	if err := os.MkdirAll(filepath.Join(images, "firmware"), 0o755); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, how := range []struct {
		name string
		args []string
		env  string
	}{
		{"file-node", []string{"--token-file", tokenFile}, ""},
		{"env-node", nil, cli.TokenEnv + "=" + token},
	} {
		args := append([]string{"node", "--join", c.APIURL(), "--name", how.name, "--node-ip", "127.0.0." + strconv.Itoa(20+i),
			"--pod-port", "0", "--images", images}, how.args...)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), how.env)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		testenv.Eventually(t, how.name+" to register its Node with the token, or end", func() bool {
			_, ok := c.Get(host.Key{Kind: "Node", Name: how.name})
			select {
			case <-exited:
				return true
			default:
				return ok
			}
		})
		argv, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cmdline")
		cmd.Process.Signal(os.Interrupt)
		<-exited
		if _, ok := c.Get(host.Key{Kind: "Node", Name: how.name}); !ok {
			t.Fatalf("%s never registered:\n%s", how.name, out.String())
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(argv, []byte(token)) || !bytes.Contains(argv, []byte(how.name)) {
			t.Errorf("%s's command line %q holds the token", how.name, bytes.ReplaceAll(argv, []byte{0}, []byte{' '}))
		}
	}
}

// TestServeTakesTheTokenFromTheEnvironment: `kube32 serve` with
// KUBE32_TOKEN and no flag requires that token on its API.
func TestServeTakesTheTokenFromTheEnvironment(t *testing.T) {
	const token = "env-serve-token-91ab"
	t.Setenv(cli.TokenEnv, token)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the HTTPS port's CA
	t.Chdir(t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	out := &testserve.Output{}
	done := make(chan int)
	go func() {
		done <- cli.Run(ctx, []string{"serve", "--ingress-port", "0", "--pod-port", "0", "--api-port", "0", "--api-tls-port", "0",
			"--kubeconfig", filepath.Join(t.TempDir(), "config")}, cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out})
	}()
	defer func() { cancel(); <-done }()
	api := regexp.MustCompile(`\n  api      (http://\S+)`)
	testenv.Eventually(t, "serve to print its API address", func() bool { return api.MatchString(out.String()) })
	url := api.FindStringSubmatch(out.String())[1] + "/api/v1/namespaces"
	for bearer, want := range map[string]int{"": http.StatusUnauthorized, token: http.StatusOK} {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s with token %q: %d, want %d\n%s", url, bearer, resp.StatusCode, want, out)
		}
	}
}

package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/cli/internal/iostreams"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// witVersion reads the version of the WIT package that abi/k32.wit declares.
func witVersion(t *testing.T) string {
	t.Helper()
	wit, err := os.ReadFile("../abi/k32.wit")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^package kube32:app@([0-9.]+);`).FindSubmatch(wit)
	if m == nil {
		t.Fatal("abi/k32.wit declares no package kube32:app@X.Y.Z")
	}
	return string(m[1])
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code = cli.Run(context.Background(), args, ios)
	return code, out.String(), errOut.String()
}

// kube32Binary builds the kube32 command: only a real binary carries the
// build information the versions come from (a test binary lists no
// dependencies).
func kube32Binary(t *testing.T) string {
	t.Helper()
	gobin := testenv.Tool(t, "go")
	bin := filepath.Join(t.TempDir(), "kube32")
	if out, err := exec.Command(gobin, "build", "-o", bin, "./kube32").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cli/kube32: %v\n%s", err, out)
	}
	return bin
}

func TestVersion(t *testing.T) {
	bin := kube32Binary(t)
	want := regexp.MustCompile(`^kube32 \S+.*\nabi    ` + regexp.QuoteMeta(witVersion(t)) +
		`\ngo     ` + regexp.QuoteMeta(runtime.Version()) + `\nwazero v[0-9]+\.[0-9]+\.[0-9]+\S*\n$`)
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("kube32 %s: %v", arg, err)
		}
		if !want.MatchString(string(out)) {
			t.Errorf("kube32 %s:\n%s\nwant it to match %s", arg, out, want)
		}
	}

	stdout, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("kube32 version -o json: %v", err)
	}
	var v map[string]any
	if err := json.Unmarshal(stdout, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	for _, k := range []string{"version", "revision", "time", "modified", "abi", "go", "wazero"} {
		if _, ok := v[k]; !ok {
			t.Errorf("no %q in %s", k, stdout)
		}
	}
	if v["abi"] != witVersion(t) || v["go"] != runtime.Version() || !strings.HasPrefix(v["wazero"].(string), "v") || v["version"] == "" {
		t.Errorf("versions %v: want abi %s, go %s, a wazero version", v, witVersion(t), runtime.Version())
	}
}

// Every mistake on the command line exits 2 and names what is wrong;
// a failure of a command that did run exits 1.
func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"build", "a", "b"}, 2, "accepts at most 1 arg"},
		{[]string{"version", "extra"}, 2, `unknown command "extra"`},
		{[]string{"build", "--no-such-flag"}, 2, "--no-such-flag"},
		{[]string{"serve", "--nodes", "0"}, 2, `"--nodes" flag: must be at least 1`},
		{[]string{"serve", "--nodes", "-1"}, 2, `"--nodes" flag: must be at least 1`},
		{[]string{"serve", "--nodes", "many"}, 2, `"--nodes" flag: must be a whole number`},
		{[]string{"serve", "--ingress-port", "65536"}, 2, `"--ingress-port" flag: must be at most 65535`},
		{[]string{"serve", "--api-port", "-1"}, 2, `"--api-port" flag: must be at least 0`},
		{[]string{"serve", "--handler-timeout", "0s"}, 2, `"--handler-timeout" flag: must be above zero`},
		{[]string{"serve", "--max-connections", "-5"}, 2, `"--max-connections" flag: must be at least 0`},
		{[]string{"serve", "--default-memory-limit", "1Ki"}, 2, "--default-memory-limit"},
		{[]string{"node", "--join", "http://127.0.0.1:1", "--pod-port", "99999"}, 2, `"--pod-port" flag: must be at most 65535`},
		{[]string{"version", "-o", "yaml"}, 2, `"-o, --output" flag: want text or json`},
		{[]string{"build", t.TempDir()}, 1, "kube32.yaml"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.HasPrefix(stderr, "kube32: ") || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.says)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q, want nothing", c.args, stdout)
		}
	}
}

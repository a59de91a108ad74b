package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testasc"
	"github.com/kube32/kube32/templates"
)

// readFile returns a file's text, failing the test when it cannot.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// buildAndTest builds the project in dir, then runs kube32 test on it,
// which must pass: nothing fails and its output holds each of want.
func buildAndTest(t *testing.T, dir string, want ...string) {
	t.Helper()
	if code, out := run(t, "build", dir); code != 0 {
		t.Fatalf("build: exit %d: %s", code, out)
	}
	code, out := run(t, "test", dir)
	if code != 0 || strings.Contains(out, "FAIL") {
		t.Fatalf("kube32 test: exit %d, want 0 and nothing failing:\n%s", code, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("kube32 test's output lacks %q:\n%s", w, out)
		}
	}
}

// For each pod template: kube32 add pod writes the pod, its manifests and
// its test, and lists it in kube32.yaml without touching the user's
// comments or order; the project then builds, and kube32 test passes,
// the new pod's test included. Adding the name again is refused.
func TestAddPodBuildsAndPassesItsTestForEachTemplate(t *testing.T) {
	for _, tmpl := range []string{"c-http", "go-http", "rust-http", "as-http"} {
		t.Run(tmpl, func(t *testing.T) {
			newApp(t, tmpl, "app")
			file := filepath.Join("app", "kube32.yaml")
			// The user's own comments: one heading pods, one after them.
			before := strings.Replace(readFile(t, file), "pods:\n", "# my pods, in my order\npods:   # keep\n", 1) + "# the end, mine too\n"
			if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}

			code, out := run(t, "add", "pod", "extra", "--template", tmpl, "--dir", "app")
			if code != 0 {
				t.Fatalf("add: exit %d: %s", code, out)
			}
			if !strings.Contains(out, "manifests/extra.yaml (Pod, Service, Ingress at /extra)") || !strings.Contains(out, "GET /extra/") {
				t.Errorf("add does not say what it wrote and where to try it:\n%s", out)
			}
			tt, _ := templates.Lookup(tmpl)
			lang := tt.Language
			want := strings.Replace(before, "manifests: [app.yaml]", "manifests: [app.yaml, manifests/extra.yaml]", 1)
			want = strings.Replace(want, "    source: pods/app\n",
				"    source: pods/app\n  - name: extra\n    language: "+lang+"\n    source: pods/extra\n", 1)
			if got := readFile(t, file); got != want {
				t.Errorf("kube32.yaml is not the user's text plus the pod:\n%s\nwant:\n%s", got, want)
			}

			if tmpl == "as-http" {
				testasc.Link(t, filepath.Join("app", "pods", "extra"))
			}
			buildAndTest(t, "app", "PASS tests/extra.hurl", "PASS tests/app.hurl")

			edited := readFile(t, file)
			code, out = run(t, "add", "pod", "extra", "--dir", "app")
			if code == 0 || !strings.Contains(out, "kube32.yaml: pods[1] is already named extra") {
				t.Errorf("second add: exit %d, want a refusal naming pods[1]: %s", code, out)
			}
			if readFile(t, file) != edited {
				t.Error("a refused add changed kube32.yaml")
			}

			// Without --template, a pod is written in the project's language.
			code, out = run(t, "add", "pod", "more", "--dir", "app")
			if code != 0 || !strings.Contains(out, "(template "+tmpl+")") {
				t.Errorf("add without --template: exit %d, want template %s: %s", code, tmpl, out)
			}
		})
	}
}

// Issue 32: an AssemblyScript pod added to a Go project (kube32 add pod api
// --template as-http) builds with the real asc beside the Go pod, and
// kube32 test passes both pods' tests.
func TestAddAssemblyScriptPodToAGoProject(t *testing.T) {
	newApp(t, "go-http", "app")
	code, out := run(t, "add", "pod", "api", "--template", "as-http", "--dir", "app")
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, out)
	}
	if !strings.Contains(out, "pods/api/package.json") || !strings.Contains(out, ".kube32/sdk/assemblyscript") {
		t.Errorf("add does not list the pod's package.json and the SDK copy:\n%s", out)
	}
	testasc.Link(t, filepath.Join("app", "pods", "api"))
	buildAndTest(t, "app", "PASS tests/api.hurl", "PASS tests/app.hurl")
}

// kube32 add bundle adds a StaticBundle (to a project that had none, so
// kube32.yaml gains a bundles list) routed at /docs: it builds, and
// kube32 test GETs its index and stylesheet through the Ingress.
func TestAddBundleBuildsAndServesItsIndex(t *testing.T) {
	newApp(t, "c-http", "app")
	t.Chdir("app")
	before := readFile(t, "kube32.yaml")
	code, out := run(t, "add", "bundle", "docs")
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, out)
	}
	want := strings.Replace(before, "manifests: [app.yaml]", "manifests: [app.yaml, manifests/docs.yaml]", 1) +
		"bundles:\n  - name: docs\n    dir: bundles/docs\n"
	if got := readFile(t, "kube32.yaml"); got != want {
		t.Errorf("kube32.yaml:\n%s\nwant:\n%s", got, want)
	}
	buildAndTest(t, ".", "PASS tests/docs.hurl:5 GET /docs/", "GET /docs/style.css")
}

// kube32 add refuses, before writing anything, a name kube32.yaml or a
// manifest already uses, a file that exists, and a name that cannot name
// the new objects, each time naming what is in the way.
func TestAddRefusesWhatIsTakenAndNamesIt(t *testing.T) {
	newApp(t, "static-site", "site")
	t.Chdir("site")
	os.WriteFile(filepath.Join("tests", "extra.hurl"), []byte("GET {{ingress}}/\nHTTP 200\n"), 0o644)
	appYAML := readFile(t, "app.yaml") + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: mine\nspec:\n  ports:\n    - port: 80\n"
	os.WriteFile("app.yaml", []byte(appYAML), 0o644)
	before := readFile(t, "kube32.yaml")

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bundle", "site"}, 1, "kube32.yaml: bundles[0] is already named site"},
		{[]string{"pod", "site"}, 1, "kube32.yaml: bundles[0] is already named site"},
		{[]string{"pod", "extra", "--template", "c-http"}, 1, "tests/extra.hurl already exists"},
		{[]string{"pod", "mine", "--template", "c-http"}, 1, "app.yaml: document 3 already defines Service default/mine"},
		{[]string{"pod", "9lives", "--template", "c-http"}, 1, "(Service default/9lives): metadata.name"},
		{[]string{"pod", "Bad_Name"}, 2, `pod name "Bad_Name" must use only`},
		{[]string{"pod", "x", "--template", "static-site"}, 2, `template "static-site" does not make a pod`},
		{[]string{"service", "x"}, 2, `cannot add a "service"`},
	} {
		code, out := run(t, append([]string{"add"}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("add %s: exit %d, want %d and %q:\n%s", strings.Join(c.args, " "), code, c.code, c.want, out)
		}
	}
	if readFile(t, "kube32.yaml") != before {
		t.Error("a refused add changed kube32.yaml")
	}
	for _, p := range []string{"pods", "manifests", "bundles"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a refused add wrote %s (%v)", p, err)
		}
	}
}

package cli_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testasc"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/templates"
)

// newApp runs `kube32 new name --template tmpl` in a temporary folder,
// which becomes the current one, after checking the template's compiler.
func newApp(t *testing.T, tmpl, name string) {
	t.Helper()
	switch tmpl {
	case "go-http":
		testenv.Tool(t, "go")
		t.Setenv("GOPROXY", "off")
		t.Setenv("GOFLAGS", "-mod=mod")
	case "go-wit":
		testenv.Tool(t, "go")
		t.Setenv("GOPROXY", "off")
	case "c-http":
		testenv.Tool(t, "clang")
	case "rust-http":
		testenv.Tool(t, "rustc")
	case "as-http":
		testasc.Install(t)
	}
	t.Chdir(t.TempDir())
	if code, out := run(t, "new", name, "--template", tmpl); code != 0 {
		t.Fatalf("new: exit %d: %s", code, out)
	}
	if tmpl == "as-http" {
		// What `npm install` in the pod's folder does: the asc that its
		// package.json pins, in its node_modules.
		testasc.Link(t, filepath.Join(name, "pods", name))
	}
}

// Every template ships a passing test: `kube32 new` then `kube32 test`
// passes, one PASS line per request of the shipped file.
func TestKube32TestPassesForEveryTemplate(t *testing.T) {
	for _, tmpl := range templates.All {
		t.Run(tmpl.Name, func(t *testing.T) {
			name := "app-" + tmpl.Name
			newApp(t, tmpl.Name, name)
			code, out := run(t, "test", name)
			if code != 0 {
				t.Fatalf("kube32 test: exit %d, want 0:\n%s", code, out)
			}
			if !strings.Contains(out, "PASS tests/") || !strings.Contains(out, " 0 failed, 0 skipped") || strings.Contains(out, "FAIL") {
				t.Errorf("kube32 test printed no PASS line or a failure:\n%s", out)
			}
		})
	}
}

// failing is a test file whose second request expects what the app does
// not answer, and whose third is then skipped.
const failing = `GET {{ingress}}/
HTTP 200

GET {{ingress}}/missing
HTTP 404
[Asserts]
body contains "not found"

GET {{ingress}}/after
HTTP 200
`

// A test that should fail does: exit 1, a FAIL line naming the request,
// then the line of each expectation with what came, and the answer; the
// rest of the file is skipped. --junit writes the same as JUnit XML.
func TestKube32TestFailureNamesRequestExpectationAndAnswer(t *testing.T) {
	newApp(t, "c-http", "app")
	if err := os.WriteFile(filepath.Join("app", "tests", "fail.hurl"), []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(t.TempDir(), "report.xml")
	code, out := run(t, "test", "app", "--junit", junit)
	if code != 1 {
		t.Fatalf("kube32 test: exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{
		"PASS tests/app.hurl:5 GET / (board time ",
		"PASS tests/fail.hurl:1 GET / (board time ",
		"FAIL tests/fail.hurl:4 GET /missing (board time ",
		"    tests/fail.hurl:5: expected status == 404, got 200\n",
		"    tests/fail.hurl:7: expected body contains \"not found\", got \"hello from app\\n\"\n",
		"    answer: 200 OK, Content-Type text/plain; charset=utf-8, body \"hello from app\\n\"\n",
		"SKIP tests/fail.hurl:9 GET /after\n",
		"2 passed, 1 failed, 1 skipped (2 files, ",
		"kube32: 1 of 4 tests failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("--junit wrote invalid XML: %v\n%s", err, raw)
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Skipped != 1 || len(doc.Suites) != 2 || doc.Suites[1].Name != "tests/fail.hurl" {
		t.Fatalf("JUnit totals: %d tests, %d failures, %d skipped, suites %+v; want 4, 1, 1 over app.hurl and fail.hurl\n%s", doc.Tests, doc.Failures, doc.Skipped, doc.Suites, raw)
	}
	cases := doc.Suites[1].Cases
	if len(cases) != 3 || cases[1].Name != "GET /missing (line 4)" || cases[1].Failure == nil ||
		cases[1].Failure.Message != "tests/fail.hurl:5: expected status == 404, got 200" ||
		!strings.Contains(cases[1].Failure.Text, "answer: 200 OK") || cases[2].Skipped == nil || cases[0].Failure != nil {
		t.Errorf("JUnit cases of fail.hurl: %+v\n%s", cases, raw)
	}
}

// What kube32 test cannot run is exit 1 with a message saying why, before
// any cluster starts: no project, a project without tests, a test file
// that does not parse (named file:line).
func TestKube32TestRefusesWhatItCannotRun(t *testing.T) {
	t.Chdir(t.TempDir())
	if code, out := run(t, "test"); code != 1 || !strings.Contains(out, "kube32: no kube32.yaml in this folder or any parent: kube32 test runs a project's tests/*.hurl") {
		t.Errorf("outside a project: exit %d:\n%s", code, out)
	}
	if code, out := run(t, "new", "app", "--template", "static-site"); code != 0 {
		t.Fatalf("new: exit %d: %s", code, out)
	}
	if err := os.WriteFile(filepath.Join("app", "tests", "bad.hurl"), []byte("GET {{ingress}}/\nHTTP 200\n[Asserts]\nstatus is 200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run(t, "test", "app"); code != 1 || !strings.Contains(out, "kube32: tests/bad.hurl:4: want a filter (") || strings.Contains(out, "Testing") {
		t.Errorf("a bad test file: exit %d, want 1 naming tests/bad.hurl:4 before starting a cluster:\n%s", code, out)
	}
	if err := os.RemoveAll(filepath.Join("app", "tests")); err != nil {
		t.Fatal(err)
	}
	if code, out := run(t, "test", "app"); code != 1 || !strings.Contains(out, "app: no test files: write tests/*.hurl (docs/testing.md)") {
		t.Errorf("no tests: exit %d:\n%s", code, out)
	}
}

// boardTest asserts that the app's answer takes the board under 50 ms.
const boardTest = `GET {{ingress}}/
HTTP 200
[Asserts]
board-time < 50
`

// kube32 test prints each answer's board time on its line and asserts on
// it: the template's pod passes board-time < 50, and the same pod made to
// loop before it answers fails, the failure saying what the board would
// take (docs/boards.md, "Time on the board").
func TestKube32TestAssertsOnBoardTime(t *testing.T) {
	newApp(t, "c-http", "app")
	if err := os.WriteFile(filepath.Join("app", "tests", "board.hurl"), []byte(boardTest), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := run(t, "test", "app")
	if code != 0 || !strings.Contains(out, "PASS tests/board.hurl:1 GET / (board time ") || !strings.Contains(out, " on esp32)\n") {
		t.Fatalf("kube32 test: exit %d, want 0 and the PASS line with the board time on esp32:\n%s", code, out)
	}

	src := filepath.Join("app", "pods", "app", "main.c")
	code0, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	loop := "for (volatile uint32_t i = 0; i < 2000000u; i++) {}\n    k32_write_str(greeting);"
	if err := os.WriteFile(src, []byte(strings.Replace(string(code0), "k32_write_str(greeting);", loop, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out = run(t, "test", "app")
	if code != 1 || !strings.Contains(out, "FAIL tests/board.hurl:1 GET / (board time ") {
		t.Fatalf("kube32 test of the looping pod: exit %d, want 1 and a FAIL line with its board time:\n%s", code, out)
	}
	_, failure, _ := strings.Cut(out, "    tests/board.hurl:4: expected board-time < 50, got ")
	if failure == "" {
		t.Fatalf("no failure naming the assert and the board time:\n%s", out)
	}
	t.Logf("the looping pod: %s", strings.SplitN(failure, "\n", 2)[0])
}

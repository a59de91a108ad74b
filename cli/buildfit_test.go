package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testasc"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// fitJSON is the fit report of `kube32 build -o json`.
type fitJSON struct {
	Fit struct {
		Board string `json:"board"`
		Pods  []struct {
			Name               string   `json:"name"`
			Language           string   `json:"language"`
			Storage            string   `json:"storage"`
			InitialMemoryBytes int64    `json:"initialMemoryBytes"`
			MemoryLimitBytes   int64    `json:"memoryLimitBytes"`
			StackBytes         *int64   `json:"stackBytes"`
			Capabilities       []string `json:"capabilities"`
			OverBytes          int64    `json:"overBytes"`
		} `json:"pods"`
		Budgets []struct {
			Name        string `json:"name"`
			UsedBytes   int64  `json:"usedBytes"`
			BudgetBytes int64  `json:"budgetBytes"`
			OverBytes   int64  `json:"overBytes"`
		} `json:"budgets"`
		Problems []string `json:"problems"`
	} `json:"fit"`
}

// Issue 32: the AssemblyScript pod of the as-http template fits esp32 (one
// 64 KiB page) in the same project where the Go pod of go-http does not:
// the report says ok for one and why not for the other.
func TestBuildFitsAnAssemblyScriptPodOnESP32WhereGoDoesNot(t *testing.T) {
	testenv.Tool(t, "go")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := filepath.Join(t.TempDir(), "app")
	if code, out := run(t, "new", "app", "--template", "as-http", "--dir", dir); code != 0 {
		t.Fatalf("kube32 new: exit %d: %s", code, out)
	}
	testasc.Link(t, filepath.Join(dir, "pods", "app"))
	if code, out := run(t, "add", "pod", "gopod", "--template", "go-http", "--dir", dir); code != 0 {
		t.Fatalf("add: exit %d: %s", code, out)
	}
	code, stdout, stderr := runCLI(t, "build", "--release", "--board", "esp32", dir)
	if code != 1 || !strings.Contains(stderr, "pod gopod: initial memory") || strings.Contains(stderr, "pod app:") {
		t.Fatalf("build --board esp32: exit %d, want 1 for the Go pod alone:\n%s", code, stderr)
	}
	asRow := regexp.MustCompile(`\napp\tassemblyscript\tfirmware\t([0-9.]+) KiB\t64\.0 KiB\t-\t64\.0 KiB\t-\t-\t1\tok\n`)
	m := asRow.FindStringSubmatch(stdout)
	if m == nil || !regexp.MustCompile(`\ngopod\tgo\tfirmware\t.*\tover by `).MatchString(stdout) {
		t.Fatalf("the report does not say ok for the AssemblyScript pod and over for the Go pod:\n%s", stdout)
	}
	if kib, _ := strconv.ParseFloat(m[1], 64); kib > 4 {
		t.Errorf("the as-http module is %s KiB, want at most 4 KiB", m[1])
	}
}

// The Go pod of the go-http template does not fit esp32: the build exits 1,
// prints its table with the verdicts, and says on stderr why and what would
// help. With a limit that esp32s3's PSRAM holds, it fits there.
func TestBuildRefusesAGoPodOnESP32(t *testing.T) {
	testenv.Tool(t, "go")
	dir := filepath.Join(t.TempDir(), "gopod")
	if code, out := run(t, "new", "gopod", "--template", "go-http", "--dir", dir); code != 0 {
		t.Fatalf("kube32 new: exit %d: %s", code, out)
	}
	code, stdout, stderr := runCLI(t, "build", "--board", "esp32", dir)
	if code != 1 {
		t.Fatalf("build --board esp32: exit %d, want 1\n%s", code, stderr)
	}
	problem := regexp.MustCompile(`^kube32: the build does not fit board esp32:\n` +
		`  pod gopod: initial memory [0-9]+\.[0-9] MiB exceeds esp32's pod memory 128\.0 KiB by [0-9]+\.[0-9] MiB: ` +
		`Go's runtime alone starts above 2\.0 MiB: write the pod in C, Rust or AssemblyScript, or choose a board with PSRAM\n`)
	if !problem.MatchString(stderr) {
		t.Errorf("stderr does not say why the Go pod does not fit:\n%s", stderr)
	}
	row := regexp.MustCompile(`\ngopod\tgo\tfirmware\t[0-9.]+ MiB\t[0-9.]+ MiB\t-\t6\.0 MiB\t-\t-\t1\tover by [0-9.]+ MiB\n`)
	if !strings.HasPrefix(stdout, "KIND\tNAME\t") || !strings.Contains(stdout, "\nfit for board esp32:\n") || !row.MatchString(stdout) {
		t.Errorf("stdout lacks the table or the pod's verdict:\n%s", stdout)
	}

	code, stdout, _ = runCLI(t, "build", "--board", "esp32", "-o", "json", dir)
	var res fitJSON
	if err := json.Unmarshal([]byte(stdout), &res); code != 1 || err != nil {
		t.Fatalf("build -o json: exit %d, %v\n%s", code, err, stdout)
	}
	f := res.Fit
	if f.Board != "esp32" || len(f.Pods) != 1 || len(f.Problems) == 0 || !strings.HasPrefix(f.Problems[0], "pod gopod: initial memory") {
		t.Fatalf("fit %+v", f)
	}
	if p := f.Pods[0]; p.Language != "go" || p.OverBytes != p.InitialMemoryBytes-128<<10 || p.StackBytes == nil || *p.StackBytes != 0 {
		t.Errorf("pod %+v", p)
	}

	// The template's 6Mi fits esp32s3; 8Mi is over its pod memory.
	code, stdout, stderr = runCLI(t, "build", "--board", "esp32s3", dir)
	if code != 0 || !regexp.MustCompile(`\ngopod\tgo\tfirmware\t[0-9.]+ MiB\t[0-9.]+ MiB\t-\t6\.0 MiB\t-\t-\t1\tok\n`).MatchString(stdout) {
		t.Errorf("build --board esp32s3 with the template's 6Mi limit: exit %d\n%s\n%s", code, stdout, stderr)
	}
	manifest := filepath.Join(dir, "app.yaml")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(data), "memory: 6Mi", "memory: 8Mi", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "build", "--board", "esp32s3", dir)
	if code != 1 || !strings.Contains(stderr, "pod gopod: resources.limits.memory 8.0 MiB exceeds esp32s3's pod memory 7.5 MiB by 512.0 KiB: set a smaller limits.memory") {
		t.Errorf("build --board esp32s3 with an 8Mi limit: exit %d\n%s", code, stderr)
	}
}

// The C pod of the c-http template fits esp32; without a board the report
// has the figures and no verdict, and the build passes.
func TestBuildAcceptsACPodOnESP32(t *testing.T) {
	dir := newCApp(t)
	code, stdout, stderr := runCLI(t, "build", "--board", "esp32", "-o", "json", dir)
	var res fitJSON
	if err := json.Unmarshal([]byte(stdout), &res); code != 0 || err != nil {
		t.Fatalf("build --board esp32 -o json: exit %d, %v\n%s", code, err, stderr)
	}
	f := res.Fit
	if f.Board != "esp32" || len(f.Problems) != 0 || len(f.Pods) != 1 || f.Pods[0].Language != "c" || f.Pods[0].OverBytes != 0 || len(f.Budgets) != 3 {
		t.Fatalf("fit %+v", f)
	}
	for _, b := range f.Budgets {
		if b.BudgetBytes == 0 || b.OverBytes != 0 {
			t.Errorf("budget %+v", b)
		}
	}
	// hello and typo, 64 KiB each.
	if f.Budgets[0].Name != "pod memory" || f.Budgets[0].UsedBytes != 128<<10 || f.Budgets[0].BudgetBytes != 128<<10 {
		t.Errorf("pod memory %+v", f.Budgets[0])
	}

	code, stdout, stderr = runCLI(t, "build", dir)
	want := "\n\nfit: no board, figures only (name one with board: in kube32.yaml or --board)\n" +
		"POD\tLANG\tSTORAGE\tMODULE\tINIT-MEM\tMAX-MEM\tLIMIT\tSTACK\tCAPABILITIES\tPODS\tFIT\n"
	if code != 0 || !strings.Contains(stdout, want) ||
		!strings.Contains(stdout, "\npod memory\t128.0 KiB, 2 Pods\t-\t-\tdefault/hello 64.0 KiB, default/typo 64.0 KiB\n") {
		t.Errorf("build without a board: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// serve --board fits its build to that board, as build --board does: the
// go-http project, which fits no board without PSRAM, does not start on
// esp32, and the error is the fit report's.
func TestServeBoardFitsTheBuild(t *testing.T) {
	testenv.Tool(t, "go")
	dir := filepath.Join(t.TempDir(), "gopod")
	if code, out := run(t, "new", "gopod", "--template", "go-http", "--dir", dir); code != 0 {
		t.Fatalf("kube32 new: exit %d: %s", code, out)
	}
	err := testserve.Try(t, dir, "--board", "esp32")
	if err == nil || !strings.Contains(err.Error(), "does not fit board esp32") || !strings.Contains(err.Error(), "pod gopod: initial memory") {
		t.Fatalf("serve --board esp32 on a Go pod: %v, want the fit report's refusal", err)
	}
	if err := testserve.Try(t, dir, "--board", "esp32s3"); err != nil {
		t.Fatalf("serve --board esp32s3: %v", err)
	}
}

// Issue 30, item 5: the fit report counts the Pods that run an image, not
// the entries of kube32.yaml. The c-http app's hello (64 KiB) run by a
// second Pod, beside typo (64 KiB), does not fit esp32, whose scheduler
// would leave the third Pod Pending ("Insufficient memory, Too many
// pods"): the build says so, and its table shows the three Pods.
func TestBuildCountsEveryPodOfAnImage(t *testing.T) {
	dir := newCApp(t)
	f, err := os.OpenFile(filepath.Join(dir, "app.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata: {name: hello-2}\nspec:\n  containers: [{name: c, image: wasm://embedded/hello, resources: {limits: {memory: 64Ki}}}]\n")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "build", "--board", "esp32", dir)
	want := "kube32: the build does not fit board esp32:\n  pod memory: 3 Pods request 192.0 KiB (default/hello 64.0 KiB, default/typo 64.0 KiB, default/hello-2 64.0 KiB; "
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("build --board esp32: exit %d, want 1 and\n%s\nstderr:\n%s", code, want, stderr)
	}
	row := "\npod memory\t192.0 KiB, 3 Pods\t128.0 KiB, 2 Pods\tover by 64.0 KiB and 1 Pod\tdefault/hello 64.0 KiB, default/typo 64.0 KiB, default/hello-2 64.0 KiB\n"
	if !strings.Contains(stdout, row) || !regexp.MustCompile(`\nhello\tc\tfirmware\t[^\n]*\t2\tok\n`).MatchString(stdout) {
		t.Errorf("stdout lacks the pod memory row %q or hello run by 2 Pods:\n%s", row, stdout)
	}
}

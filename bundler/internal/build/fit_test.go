package build

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// cPodSource is a C pod; publish makes it import k32_publish, which needs
// the CHANNEL_IPC capability, and publish its path, read into a buffer on
// its stack (a module that uses no stack has no stack pointer).
func cPodSource(publish bool) string {
	body := `return k32_respond(200, "text/plain", K32_STR("hi\n"));`
	if publish {
		body = `char path[64]; int32_t n = k32_req_path(path, sizeof path); k32_publish("t", 1, path, n < 0 ? 0 : n); ` + body
	}
	return "#include \"k32.h\"\n\nK32_EXPORT(k32_handle) int32_t k32_handle(void) {\n    " + body + "\n}\n"
}

// cProject writes a project of n C pods (p0, p1, …), each run by a Pod
// limited to limit, and a bundle site of the given files.
func cProject(t *testing.T, n int, limit string, site map[string]string) string {
	dir := t.TempDir()
	files := map[string]string{}
	yaml := "name: fit\nmanifests: [app.yaml]\npods:\n"
	var manifests []string
	for i := range n {
		name := fmt.Sprint("p", i)
		yaml += fmt.Sprintf("  - name: %s\n    language: c\n    source: pods/%s\n", name, name)
		files["pods/"+name+"/main.c"] = cPodSource(i == 0)
		manifests = append(manifests, fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\nspec:\n  containers:\n"+
			"    - name: c\n      image: wasm://embedded/%s\n      resources:\n        limits:\n          memory: %s\n", name, name, limit))
	}
	if site != nil {
		yaml += "bundles:\n  - name: site\n    dir: site\n"
		for name, data := range site {
			files["site/"+name] = data
		}
	}
	files["kube32.yaml"] = yaml
	files["app.yaml"] = strings.Join(manifests, "---\n")
	testenv.WriteFiles(t, dir, files)
	return dir
}

func fitError(t *testing.T, err error) *FitError {
	t.Helper()
	var ferr *FitError
	if !errors.As(err, &ferr) {
		t.Fatalf("Build error = %v, want a *FitError", err)
	}
	return ferr
}

func budget(f Fit, name string) Budget {
	for _, b := range f.Budgets {
		if b.Name == name {
			return b
		}
	}
	return Budget{}
}

// A C pod within its 64Ki limit fits esp32; its figures are those of the
// module, and an up-to-date build reports the same.
func TestFitAcceptsACPodOnESP32(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	dir := cProject(t, 1, "64Ki", nil)
	var fits []Fit
	for range 2 {
		res, err := Build(context.Background(), dir, Options{Board: "esp32"})
		if err != nil {
			t.Fatal(err)
		}
		fits = append(fits, res.Fit)
	}
	f := fits[0]
	if f.Board != "esp32" || len(f.Pods) != 1 || len(f.Problems) != 0 {
		t.Fatalf("fit %+v", f)
	}
	p := f.Pods[0]
	if p.Language != "c" || p.Storage != "firmware" || p.InitialMemory != 64<<10 || p.MemoryLimit != 64<<10 ||
		p.Counted != 64<<10 || !slices.Equal(p.RunBy, []string{"default/p0"}) || p.StackBytes != 8192 || p.OverBytes != 0 || !slices.Equal(p.Capabilities, []string{string(abi.ChannelIPC)}) {
		t.Errorf("pod fit %+v", p)
	}
	esp32, _ := abi.LookupBoard("esp32")
	if app := budget(f, BudgetAppImage); app.Used != esp32.FirmwareBase+p.ModuleBytes || app.Budget != esp32.AppImage || app.OverBytes != 0 {
		t.Errorf("app image %+v", app)
	}
	if pm := budget(f, BudgetPodMemory); pm.Used != 64<<10 || pm.Budget != 128<<10 || pm.MaxPods != 2 || pm.OverPods != 0 ||
		pm.Node != "" || !slices.Equal(pm.Pods, []string{"default/p0 64.0 KiB"}) {
		t.Errorf("pod memory %+v", pm)
	}
	if fmt.Sprint(fits[1]) != fmt.Sprint(f) {
		t.Errorf("up-to-date build's fit\n%+v\ndiffers from the first\n%+v", fits[1], f)
	}
}

// Three C pods of 64Ki each fit esp32 alone but not together; without a
// board the build passes with the same figures and no verdict.
func TestFitRefusesPodsThatTogetherExceedThePodMemory(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	dir := cProject(t, 3, "64Ki", nil)
	res, err := Build(context.Background(), dir, Options{Board: "esp32"})
	ferr := fitError(t, err)
	want := "pod memory: 3 Pods request 192.0 KiB (default/p0 64.0 KiB, default/p1 64.0 KiB, default/p2 64.0 KiB; each container its resources.requests.memory, else its limits.memory, else the default memory limit, 8.0 MiB, as serve --board schedules them), over esp32's 128.0 KiB by 64.0 KiB, and esp32 holds 2 Pods (one per 64.0 KiB page of its pod memory): run them on several boards"
	if len(ferr.Problems) != 1 || !strings.HasPrefix(ferr.Problems[0], want) {
		t.Errorf("problems %q\nwant one starting %q", ferr.Problems, want)
	}
	if pm := budget(res.Fit, BudgetPodMemory); pm.OverBytes != 64<<10 || pm.Used != 192<<10 || pm.MaxPods != 2 || pm.OverPods != 1 {
		t.Errorf("pod memory %+v", pm)
	}
	if len(res.Items) != 3 || res.Items[2].ModuleBytes == 0 {
		t.Errorf("a fit failure must keep the build's result: %+v", res.Items)
	}

	res, err = Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("without a board: %v", err)
	}
	if pm := budget(res.Fit, BudgetPodMemory); res.Fit.Board != "" || len(res.Fit.Problems) != 0 || pm.Used != 192<<10 || pm.Budget != 0 || pm.OverBytes != 0 {
		t.Errorf("fit without a board %+v", res.Fit)
	}
}

// A bundle of 3 MiB that does not compress does not fit esp32's app image
// beside the firmware; on the 16 MiB board it does.
func TestFitRefusesABundleTooBigForTheAppImage(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	noise := make([]byte, 3<<20)
	rand.Read(noise)
	dir := cProject(t, 1, "64Ki", map[string]string{"noise.bin": string(noise)})
	res, err := Build(context.Background(), dir, Options{Board: "esp32"})
	ferr := fitError(t, err)
	app := budget(res.Fit, BudgetAppImage)
	if app.OverBytes <= 0 || app.OverBytes != app.Used-app.Budget {
		t.Fatalf("app image %+v", app)
	}
	want := fmt.Sprintf("app image: build/firmware/ (%s) and the firmware itself (1.5 MiB, an estimate) take %s, over esp32's app partition of 3.9 MiB by %s: move images to the SD card (pod p0",
		FormatSize(app.Used-app.FirmwareBase), FormatSize(app.Used), FormatSize(app.OverBytes))
	if len(ferr.Problems) != 1 || !strings.HasPrefix(ferr.Problems[0], want) || !strings.Contains(ferr.Problems[0], "as image: wasm://sd/p0") {
		t.Errorf("problems %q\nwant one starting %q", ferr.Problems, want)
	}
	if _, err := Build(context.Background(), dir, Options{Board: "esp32s3-n16r8"}); err != nil {
		t.Errorf("on esp32s3-n16r8: %v", err)
	}
}

// A Go pod starts above esp32's pod memory: refused with the reason and
// what would help. The same module fits esp32s3.
func TestFitGoPodRefusedOnESP32AcceptedOnESP32S3(t *testing.T) {
	testenv.Tools(t, "go")
	dir := copyFixture(t, "goapp")
	res, err := Build(context.Background(), dir, Options{Board: "esp32"})
	ferr := fitError(t, err)
	p := res.Fit.Pods[0]
	if p.Language != "go" || p.Storage != "sd" || p.StackBytes != 0 || p.OverBytes != p.InitialMemory-128<<10 || p.InitialMemory < 2<<20 {
		t.Errorf("pod fit %+v", p)
	}
	want := fmt.Sprintf("pod api: initial memory %s exceeds esp32's pod memory 128.0 KiB by %s: Go's runtime alone starts above 2.0 MiB: write the pod in C, Rust or AssemblyScript, or choose a board with PSRAM",
		FormatSize(p.InitialMemory), FormatSize(p.OverBytes))
	if len(ferr.Problems) != 1 || ferr.Problems[0] != want {
		t.Errorf("problems %q\nwant [%q]", ferr.Problems, want)
	}
	if !strings.Contains(err.Error(), "does not fit board esp32:\n  pod api: initial memory") {
		t.Errorf("error %q", err)
	}

	res, err = Build(context.Background(), dir, Options{Board: "esp32s3"})
	if err != nil {
		t.Fatalf("on esp32s3: %v", err)
	}
	if res.Board != "esp32s3" || res.Fit.Pods[0].OverBytes != 0 || !res.Items[0].UpToDate {
		t.Errorf("on esp32s3: board %q, fit %+v, up to date %v", res.Board, res.Fit.Pods[0], res.Items[0].UpToDate)
	}
}

// kube32.yaml's board: applies when Options name none; Options override it.
func TestFitTakesTheProjectsBoard(t *testing.T) {
	testenv.Tools(t, "go")
	dir := copyFixture(t, "goapp")
	testenv.WriteFiles(t, dir, map[string]string{"kube32.yaml": "name: goapp\nboard: esp32\npods:\n  - name: api\n    language: go\n    source: pods/api\n    image: wasm://sd/api\n"})
	if _, err := Build(context.Background(), dir, Options{}); fitError(t, err).Board != "esp32" {
		t.Errorf("board of the error: %v", err)
	}
	if res, err := Build(context.Background(), dir, Options{Board: "esp32-psram"}); err != nil || res.Board != "esp32-psram" {
		t.Errorf("--board esp32-psram: board %v, %v", res, err)
	}
	if _, err := Build(context.Background(), filepath.Join(dir), Options{Board: "esp8266"}); err == nil || !strings.Contains(err.Error(), `unknown board "esp8266"`) {
		t.Errorf("an unknown board: %v", err)
	}
}

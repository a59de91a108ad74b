package sdk_test

// Tests of the Go guest SDK (module github.com/kube32/kube32/sdk/go, in
// ./go) from the root module: its host-function declarations against the
// ABI table, its error codes against abi.Errors, its own unit tests, and
// real pods built with it by the Go compiler and run under wazero.
//
// Identifiers here start with goSDK so they cannot clash with other test
// files of package sdk_test.

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
	k32 "github.com/kube32/kube32/sdk/go"
)

// goSDKDir is the SDK module, relative to this test's directory.
const goSDKDir = "go"

// goSDKImport is one //go:wasmimport declaration of the SDK.
type goSDKImport struct {
	goName  string
	params  []string // Go types: "unsafe.Pointer", "uint32", …
	results []string
}

// goSDKParseImports returns the k32 host functions declared in file, by
// import name. In imports_wasm.go they carry //go:wasmimport k32 <name>; in
// imports_other.go (the host stubs, no directive) they are matched by their
// Go names through byGoName.
func goSDKParseImports(t *testing.T, file string) (byImport map[string]goSDKImport, byGoName map[string]goSDKImport) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(goSDKDir, file), nil, parser.ParseComments)
	if err != nil {
		t.Fatalf("parsing SDK file: %v", err)
	}
	byImport = map[string]goSDKImport{}
	byGoName = map[string]goSDKImport{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil {
			continue
		}
		imp := goSDKImport{goName: fd.Name.Name}
		for _, p := range fd.Type.Params.List {
			n := len(p.Names)
			if n == 0 {
				n = 1
			}
			for i := 0; i < n; i++ {
				imp.params = append(imp.params, types(p.Type))
			}
		}
		if fd.Type.Results != nil {
			for _, r := range fd.Type.Results.List {
				imp.results = append(imp.results, types(r.Type))
			}
		}
		byGoName[imp.goName] = imp
		if fd.Doc == nil {
			continue
		}
		for _, c := range fd.Doc.List {
			fields := strings.Fields(strings.TrimPrefix(c.Text, "//"))
			if len(fields) == 0 || fields[0] != "go:wasmimport" {
				continue
			}
			if len(fields) != 3 || fields[1] != abi.Module {
				t.Errorf("%s: %s: want //go:wasmimport %s <name>", file, c.Text, abi.Module)
				continue
			}
			if _, dup := byImport[fields[2]]; dup {
				t.Errorf("%s: %s declared twice", file, fields[2])
			}
			byImport[fields[2]] = imp
		}
	}
	return byImport, byGoName
}

// types prints a parameter type expression: "uint32", "unsafe.Pointer".
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	case *ast.StarExpr:
		return "*" + types(e.X)
	}
	return fmt.Sprintf("%T", e)
}

// goSDKTypeFits reports whether a Go parameter type carries the ABI type t
// with the same meaning: pointers as unsafe.Pointer (or uint32), lengths as
// uint32, i32 as int32, i64 as int64.
func goSDKTypeFits(goType string, t abi.Type) bool {
	switch t {
	case abi.Ptr:
		return goType == "unsafe.Pointer" || goType == "uint32"
	case abi.U32:
		return goType == "uint32"
	case abi.I32:
		return goType == "int32"
	case abi.I64:
		return goType == "int64"
	}
	return false
}

func TestGoSDKWasmImportsMatchABITable(t *testing.T) {
	decls, _ := goSDKParseImports(t, "imports_wasm.go")
	var want, got []string
	for _, f := range abi.Functions {
		want = append(want, f.Name)
	}
	for name := range decls {
		got = append(got, name)
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("sdk/go/imports_wasm.go declares\n  %v\nabi.Functions has\n  %v", got, want)
	}
	for _, f := range abi.Functions {
		d, ok := decls[f.Name]
		if !ok {
			continue
		}
		if len(d.params) != len(f.Params) {
			t.Errorf("%s (Go %s): %d params, ABI has %d", f.Name, d.goName, len(d.params), len(f.Params))
		} else {
			for i, p := range f.Params {
				if !goSDKTypeFits(d.params[i], p.Type) {
					t.Errorf("%s (Go %s): param %d (%s) is Go %s, ABI type %s", f.Name, d.goName, i, p.Name, d.params[i], p.Type)
				}
			}
		}
		if len(d.results) != len(f.Results) {
			t.Errorf("%s (Go %s): %d results, ABI has %d", f.Name, d.goName, len(d.results), len(f.Results))
		} else {
			for i, r := range f.Results {
				if !goSDKTypeFits(d.results[i], r) {
					t.Errorf("%s (Go %s): result %d is Go %s, ABI type %s", f.Name, d.goName, i, d.results[i], r)
				}
			}
		}
	}
}

// The host stubs must have the very signatures of the imports, or code that
// compiles on the host would not compile for wasm (and the other way round).
func TestGoSDKHostStubsMatchWasmImports(t *testing.T) {
	decls, _ := goSDKParseImports(t, "imports_wasm.go")
	_, stubs := goSDKParseImports(t, "imports_other.go")
	if len(stubs) != len(decls) {
		t.Errorf("imports_other.go has %d functions, imports_wasm.go %d imports", len(stubs), len(decls))
	}
	for name, d := range decls {
		s, ok := stubs[d.goName]
		if !ok {
			t.Errorf("imports_other.go: no stub %s for %s", d.goName, name)
			continue
		}
		if fmt.Sprint(s.params, s.results) != fmt.Sprint(d.params, d.results) {
			t.Errorf("%s: stub %v %v, import %v %v", d.goName, s.params, s.results, d.params, d.results)
		}
	}
}

func TestGoSDKErrnoMatchesABIErrors(t *testing.T) {
	for _, e := range abi.Errors {
		if got := k32.Errno(e.Code).Name(); got != e.Name {
			t.Errorf("k32.Errno(%d).Name() = %q, want %q", e.Code, got, e.Name)
		}
	}
	// And no code the ABI does not have.
	for code := int32(-200); code < 0; code++ {
		if k32.Errno(code).Name() != "" && abi.Errno(code).Name() == "" {
			t.Errorf("k32.Errno(%d) is named %q but abi.Errors has no such code", code, k32.Errno(code).Name())
		}
	}
}

// goSDKGoTool finds the go command: missing it fails under CI and skips
// elsewhere.
func goSDKGoTool(t *testing.T) string {
	t.Helper()
	return testenv.Tool(t, "go")
}

// goSDKEnv is the environment of a go command that must work offline, with
// the SDK taken from this checkout: GOPROXY=off, the caller's GOWORK, and no
// GOFLAGS (-mod=mod, for one, is refused in workspace mode).
func goSDKEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "GOFLAGS", "GOWORK", "GOOS", "GOARCH", "GOPROXY", "GOTOOLCHAIN", "CGO_ENABLED":
			continue
		}
		env = append(env, kv)
	}
	return append(env, append([]string{"GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0"}, extra...)...)
}

// The SDK is its own module, so `go test ./...` of the root module does not
// reach its unit tests; run them (and vet for wasm) from here.
func TestGoSDKModuleUnitTestsAndVet(t *testing.T) {
	goTool := goSDKGoTool(t)
	for _, c := range []struct {
		args []string
		env  []string
	}{
		{[]string{"test", "./..."}, nil},
		{[]string{"vet", "./..."}, nil},
		{[]string{"vet", "./..."}, []string{"GOOS=wasip1", "GOARCH=wasm"}},
	} {
		cmd := exec.Command(goTool, c.args...)
		cmd.Dir = goSDKDir
		cmd.Env = goSDKEnv(append([]string{"GOWORK=off"}, c.env...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s (%s) in sdk/go: %v\n%s", strings.Join(c.args, " "), strings.Join(c.env, " "), err, out)
		}
	}
}

// goSDKPods are the test pods in testdata, built once for every test.
var goSDKPods = []string{"gopod", "gohttppod"}

var (
	goSDKBuildOnce sync.Once
	goSDKWasm      map[string][]byte
	goSDKBuildErr  error
)

// goSDKBuild builds the test pods with the SDK of this checkout, the way the
// kube32 CLI does offline: a go.work that uses the pod and sdk/go, with
// GOPROXY=off. It returns the modules by pod name.
func goSDKBuild(t *testing.T) map[string][]byte {
	t.Helper()
	goTool := goSDKGoTool(t)
	goSDKBuildOnce.Do(func() { goSDKWasm, goSDKBuildErr = goSDKBuildPods(goTool) })
	if goSDKBuildErr != nil {
		t.Fatal(goSDKBuildErr)
	}
	return goSDKWasm
}

func goSDKBuildPods(goTool string) (map[string][]byte, error) {
	sdkDir, err := filepath.Abs(goSDKDir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "k32-gosdk-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	work := "go 1.24\n\nuse (\n\t" + sdkDir + "\n"
	for _, p := range goSDKPods {
		dir, err := filepath.Abs(filepath.Join("testdata", p))
		if err != nil {
			return nil, err
		}
		work += "\t" + dir + "\n"
	}
	work += ")\n"
	goWork := filepath.Join(tmp, "go.work")
	if err := os.WriteFile(goWork, []byte(work), 0o644); err != nil {
		return nil, err
	}

	wasm := make(map[string][]byte)
	errs := make([]error, len(goSDKPods))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, p := range goSDKPods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := filepath.Join(tmp, p+".wasm")
			cmd := exec.Command(goTool, "build", "-buildmode=c-shared", "-o", out, ".")
			cmd.Dir = filepath.Join("testdata", p)
			cmd.Env = goSDKEnv("GOWORK="+goWork, "GOOS=wasip1", "GOARCH=wasm")
			if msg, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("building pod %s: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared: %v\n%s", p, err, msg)
				return
			}
			bin, err := os.ReadFile(out)
			if err != nil {
				errs[i] = fmt.Errorf("building pod %s: %v", p, err)
				return
			}
			mu.Lock()
			wasm[p] = bin
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return wasm, nil
}

// TestGoSDKPodsAreValidModules compiles each built pod with wazero and checks
// what the ABI asks of a module: the callbacks exported with their
// signatures, memory exported, and imports only from k32 (as the ABI table
// declares them) and the node's WASI subset. It logs the initial memory,
// which bounds resources.limits.memory of a Go pod.
func TestGoSDKPodsAreValidModules(t *testing.T) {
	wasm := goSDKBuild(t)
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	for _, name := range goSDKPods {
		t.Run(name, func(t *testing.T) {
			mod, err := rt.CompileModule(ctx, wasm[name])
			if err != nil {
				t.Fatalf("pod %s: compiling: %v", name, err)
			}
			exports := mod.ExportedFunctions()
			for _, want := range []string{"_initialize", "k32_handle", "k32_event", "k32_init"} {
				fn, ok := exports[want]
				if !ok {
					t.Errorf("pod %s: export %s missing", name, want)
					continue
				}
				e, _ := abi.LookupExport(want)
				if got, want := goSDKSig(fn.ParamTypes(), fn.ResultTypes()), goSDKABISig(e.Params, e.Results); got != want {
					t.Errorf("pod %s: export %s has type %s, want %s", name, e.Name, got, want)
				}
			}
			mem, ok := mod.ExportedMemories()["memory"]
			if !ok {
				t.Fatalf("pod %s: memory not exported as \"memory\"", name)
			}
			t.Logf("pod %s: %d bytes, initial memory %d pages (%d KiB)", name, len(wasm[name]), mem.Min(), mem.Min()*64)
			if name == "gopod" && strings.Contains(string(wasm[name]), "fmt.Sprintf") {
				t.Errorf("pod %s links fmt (found in its name section): package k32 must keep fmt to Logf", name)
			}
			for _, fn := range mod.ImportedFunctions() {
				module, fname, _ := fn.Import()
				switch module {
				case abi.Module:
					f, ok := abi.Lookup(fname)
					if !ok {
						t.Errorf("pod %s: import %s.%s: not in abi.Functions", name, module, fname)
						continue
					}
					var params []abi.Type
					for _, p := range f.Params {
						params = append(params, p.Type)
					}
					if got, want := goSDKSig(fn.ParamTypes(), fn.ResultTypes()), goSDKABISig(params, f.Results); got != want {
						t.Errorf("pod %s: import %s.%s has type %s, ABI %s", name, module, fname, got, want)
					}
				case abi.WASIModule:
					if !abi.InWASISubset(fname) {
						t.Errorf("pod %s: import %s.%s: not in the node's WASI subset", name, module, fname)
					}
				default:
					t.Errorf("pod %s: import %s.%s: module must be %s or %s", name, module, fname, abi.Module, abi.WASIModule)
				}
			}
		})
	}
}

// goSDKSig prints a wasm function type: "(i32,i32)->(i32)".
func goSDKSig(params, results []api.ValueType) string {
	name := func(ts []api.ValueType) string {
		var s []string
		for _, t := range ts {
			s = append(s, api.ValueTypeName(t))
		}
		return "(" + strings.Join(s, ",") + ")"
	}
	return name(params) + "->" + name(results)
}

// goSDKABISig prints the wasm function type of ABI types, as goSDKSig does.
func goSDKABISig(params, results []abi.Type) string {
	name := func(ts []abi.Type) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.WasmType())
		}
		return "(" + strings.Join(s, ",") + ")"
	}
	return name(params) + "->" + name(results)
}

// goSDKMemoryLimit is resources.limits.memory the test pods run under, so a
// change that makes a Go pod need more memory shows here. A Go module starts
// with 37 pages (58 with net/http) and its runtime grows the heap at
// start; 4Mi (64 pages) holds a pod using package k32, 8Mi one using net/http.
var goSDKMemoryLimit = map[string]int64{"gopod": 4 << 20, "gohttppod": 8 << 20}

// goSDKStartPod starts a built test pod under the node's pod runtime, with
// env, and serves it on a loopback HTTP server. Log lines are collected.
func goSDKStartPod(t *testing.T, name string, cfg host.PodConfig) (p *host.Pod, url string, logs func() string) {
	t.Helper()
	wasm := goSDKBuild(t)
	var mu sync.Mutex
	var lines []string
	cfg.Namespace, cfg.Name, cfg.Module = "default", name, wasm[name]
	cfg.MemoryLimit = goSDKMemoryLimit[name]
	cfg.Log = func(l host.LogLine) {
		mu.Lock()
		lines = append(lines, l.Stream+": "+l.Text)
		mu.Unlock()
	}
	p = host.NewPod(cfg)
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("pod %s: start: %v (status %+v)", name, err, p.Status())
	}
	t.Cleanup(p.Stop)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL, func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(lines, "\n")
	}
}

// goSDKDo sends one request and returns the response with its body read.
func goSDKDo(t *testing.T, method, url string, header http.Header, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp, string(b)
}

// goSDKLines parses "key=value" lines of a test pod's answer.
func goSDKLines(body string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(body, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

func TestGoSDKPodServesRequestsThroughTheNode(t *testing.T) {
	long := strings.Repeat("L", 300) // longer than the SDK's first env buffer
	_, url, logs := goSDKStartPod(t, "gopod", host.PodConfig{Env: []host.EnvVar{{Name: "GREETING", Value: "hello world"}, {Name: "LONG", Value: long}}})
	body := "payload:" + strings.Repeat("b", 3000) // several k32_req_read calls
	resp, got := goSDKDo(t, "POST", url+"/some/pa%2Fth?a=1&b=two+words",
		http.Header{"X-Test": {"value 1"}, "X-Multi": {"m1", "m2"}}, body)
	if resp.StatusCode != 201 {
		t.Fatalf("status %d, want 201; body %q; logs:\n%s", resp.StatusCode, got, logs())
	}
	if v := resp.Header.Get("X-Pod"); v != "gopod" {
		t.Errorf("response header X-Pod = %q, want gopod", v)
	}
	if v := strings.Join(resp.Header.Values("X-Reply"), ","); v != "one,two" && v != "one, two" {
		t.Errorf("response header X-Reply = %q, want one and two", v)
	}
	if v := resp.Header.Get("Content-Type"); v != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q", v)
	}
	m := goSDKLines(got)
	for k, want := range map[string]string{
		"method": "POST", "path": "/some/pa%2Fth", "query": "a=1&b=two+words", "x-test": "value 1",
		"greeting": "hello world", "long": long, "missing": "absent", "body": body,
	} {
		if m[k] != want {
			t.Errorf("pod read %s = %q, want %q", k, goSDKShort(m[k]), goSDKShort(want))
		}
	}
	if m["x-multi"] != "m1|m2" && m["x-multi"] != "m1, m2" {
		t.Errorf("pod read X-Multi = %q, want both values", m["x-multi"])
	}

	if resp, _ := goSDKDo(t, "GET", url+"/redirect", nil, ""); resp.StatusCode != 302 || resp.Header.Get("Location") != "/elsewhere" {
		t.Errorf("/redirect: %d Location %q, want 302 /elsewhere", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := goSDKDo(t, "GET", url+"/headers-only", nil, ""); resp.StatusCode != 200 || resp.Header.Get("X-Only") != "yes" {
		t.Errorf("/headers-only: %d X-Only %q, want 200 yes (header set without Write must still go out)", resp.StatusCode, resp.Header.Get("X-Only"))
	}
	if resp, _ := goSDKDo(t, "GET", url+"/panic", nil, ""); resp.StatusCode != 500 {
		t.Errorf("/panic: status %d, want 500", resp.StatusCode)
	}
	if !strings.Contains(logs(), "asked to panic") {
		t.Errorf("the panic is not in the pod log:\n%s", logs())
	}
	if resp, got := goSDKDo(t, "GET", url+"/after-panic", nil, ""); resp.StatusCode != 201 || goSDKLines(got)["path"] != "/after-panic" {
		t.Errorf("request after a panic: %d %q, want the pod still serving", resp.StatusCode, got)
	}
	if !strings.Contains(logs(), "gopod starting") {
		t.Errorf("the OnInit function did not log:\n%s", logs())
	}
}

func TestGoSDKNetHTTPPodServesRequestsThroughTheNode(t *testing.T) {
	_, url, logs := goSDKStartPod(t, "gohttppod", host.PodConfig{Env: []host.EnvVar{{Name: "GREETING", Value: "hi"}}})
	resp, got := goSDKDo(t, "POST", url+"/items/widget?q=z", http.Header{"X-Test": {"t"}}, "the body")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d, want 202; body %q; logs:\n%s", resp.StatusCode, got, logs())
	}
	if v := resp.Header.Get("X-Pod"); v != "gohttppod" {
		t.Errorf("X-Pod = %q", v)
	}
	m := goSDKLines(got)
	host := strings.TrimPrefix(url, "http://")
	for k, want := range map[string]string{"name": "widget", "q": "z", "x-test": "t", "greeting": "hi", "body": "the body", "host": host} {
		if m[k] != want {
			t.Errorf("pod read %s = %q, want %q", k, m[k], want)
		}
	}
	if resp, got := goSDKDo(t, "GET", url+"/html", nil, ""); !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(got, "hi") {
		t.Errorf("/html: Content-Type %q body %q, want sniffed text/html", resp.Header.Get("Content-Type"), got)
	}
	if resp, _ := goSDKDo(t, "GET", url+"/nowhere", nil, ""); resp.StatusCode != 404 {
		t.Errorf("/nowhere: status %d, want the ServeMux's 404", resp.StatusCode)
	}
}

// goSDKCaller answers every k32_http_call with a fixed response and keeps
// the calls it got.
type goSDKCaller struct {
	mu    sync.Mutex
	calls []host.Call
}

func (c *goSDKCaller) HTTPCall(_ context.Context, call host.Call) (host.CallResult, error) {
	c.mu.Lock()
	c.calls = append(c.calls, call)
	c.mu.Unlock()
	body := []byte("pong-and-more")
	res := host.CallResult{Status: 203, Header: http.Header{"X-Answer": {"yes"}}, Body: body}
	if len(body) > call.RespCap {
		res.Body, res.Truncated = body[:call.RespCap], true
	}
	return res, nil
}

// goSDKPublisher keeps what the pod published.
type goSDKPublisher struct {
	mu  sync.Mutex
	got []string
}

func (p *goSDKPublisher) Publish(_ context.Context, from, topic string, data []byte) error {
	p.mu.Lock()
	p.got = append(p.got, from+" "+topic+" "+string(data))
	p.mu.Unlock()
	return nil
}

func TestGoSDKCallsChannelsAssetsAndClock(t *testing.T) {
	caller, publisher := &goSDKCaller{}, &goSDKPublisher{}
	p, url, logs := goSDKStartPod(t, "gopod", host.PodConfig{
		Capabilities: []string{"SERVICE_CALL", "CHANNEL_IPC"},
		Caller:       caller, Publisher: publisher,
		Assets: fstest.MapFS{"index.html": {Data: []byte("<h1>bundle</h1>")}},
	})

	_, got := goSDKDo(t, "GET", url+"/call", nil, "")
	m := goSDKLines(got)
	if m["err"] != "" || m["status"] != "203" || m["x-answer"] != "yes" || m["body"] != "pong-and-more" {
		t.Errorf("Call: pod saw %q; logs:\n%s", got, logs())
	}
	caller.mu.Lock()
	if len(caller.calls) != 1 {
		t.Fatalf("caller got %d calls, want 1", len(caller.calls))
	}
	c := caller.calls[0]
	caller.mu.Unlock()
	if c.Method != "POST" || c.URL != "http://echo/x" || c.Header.Get("X-Req") != "r" || string(c.Body) != "ping" ||
		c.RespCap != 64<<10 || c.Timeout != 2*time.Second {
		t.Errorf("host got call %+v", c)
	}

	_, got = goSDKDo(t, "GET", url+"/call?small", nil, "")
	if m := goSDKLines(got); m["err"] != k32.ErrTooBig.Error() || m["status"] != "203" || m["body"] != "pong" {
		t.Errorf("Call with a 4-byte buffer: pod saw %q, want ErrTooBig, status and the first 4 bytes", got)
	}
	_, got = goSDKDo(t, "GET", url+"/call?grow", nil, "")
	if m := goSDKLines(got); m["err"] != "" || m["body"] != "pong-and-more" {
		t.Errorf("Call allowed to grow: pod saw %q, want the whole body", got)
	}

	if resp, got := goSDKDo(t, "POST", url+"/publish", nil, "extra!"); resp.StatusCode != 200 {
		t.Errorf("/publish: %d %q", resp.StatusCode, got)
	}
	publisher.mu.Lock()
	if len(publisher.got) != 1 || publisher.got[0] != "default/gopod news extra!" {
		t.Errorf("published %q", publisher.got)
	}
	publisher.mu.Unlock()

	if ret, err := p.Event(context.Background(), "alerts", []byte("fire")); err != nil || ret != 0 {
		t.Errorf("k32_event: %d, %v", ret, err)
	}
	if _, got := goSDKDo(t, "GET", url+"/last-event", nil, ""); got != "alerts:fire" {
		t.Errorf("OnEvent got %q, want alerts:fire", got)
	}

	resp, got := goSDKDo(t, "GET", url+"/asset", nil, "")
	if resp.StatusCode != 200 || got != "<h1>bundle</h1>" || resp.Header.Get("X-Asset") != "1" {
		t.Errorf("/asset: %d %q X-Asset %q", resp.StatusCode, got, resp.Header.Get("X-Asset"))
	}
	resp, got = goSDKDo(t, "GET", url+"/asset-missing", nil, "")
	if resp.StatusCode != 404 || !strings.Contains(got, "K32_ERR_NOENT") || len(resp.Header.Values("X-Asset")) != 1 ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("/asset-missing: %d %q header %v; want 404 with X-Asset once", resp.StatusCode, got, resp.Header)
	}

	_, got = goSDKDo(t, "GET", url+"/misc", nil, "")
	if m := goSDKLines(got); m["sleep"] != "ok" || m["random"] != "ok" || m["year"] < "2025" {
		t.Errorf("/misc: %q", got)
	}
}

// goSDKShort shortens long values in failure messages.
func goSDKShort(s string) string {
	if len(s) > 60 {
		return s[:60] + "…(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return s
}

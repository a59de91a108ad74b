package csdk_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testkit/testabi"
	"github.com/kube32/kube32/internal/testkit/testenv"
	csdk "github.com/kube32/kube32/sdk/c"
)

// podFlags are the flags kube32 build gives a one-page C pod, plus
// warnings as errors so that the headers stay warning-free.
var podFlags = append(append([]string{}, compile.BaseCFlags...),
	"-Wl,--initial-memory=65536", "-Wall", "-Wextra", "-Werror")

// requireClang returns the path of clang, or skips the test (fails it in CI).
func requireClang(t *testing.T) string {
	t.Helper()
	return testenv.Tool(t, "clang")
}

// callsC is a C file that calls every host function of the ABI table once,
// with zero arguments, from an exported k32_main. Compiling it against the
// header and reading the module's imports checks every declaration.
func callsC() string {
	var b strings.Builder
	b.WriteString("#include \"k32_app_abi.h\"\n\nK32_EXPORT(k32_main) int32_t k32_main(void) {\n    int64_t sum = 0;\n")
	for _, f := range abi.Functions {
		args := strings.TrimSuffix(strings.Repeat("0, ", len(f.Params)), ", ")
		if len(f.Results) == 0 {
			fmt.Fprintf(&b, "    %s(%s);\n", f.Name, args)
		} else {
			fmt.Fprintf(&b, "    sum += %s(%s);\n", f.Name, args)
		}
	}
	b.WriteString("    return (int32_t)sum;\n}\n")
	return b.String()
}

var (
	podOnce sync.Once
	podWasm []byte
	podErr  error
)

// buildPod compiles testdata/pod.c and the generated calls.c once per test
// binary against the headers in this directory.
func buildPod(t *testing.T) []byte {
	t.Helper()
	clang := requireClang(t)
	podOnce.Do(func() {
		dir, err := os.MkdirTemp("", "k32-csdk-")
		if err != nil {
			podErr = err
			return
		}
		defer os.RemoveAll(dir)
		calls := filepath.Join(dir, "calls.c")
		if podErr = os.WriteFile(calls, []byte(callsC()), 0o644); podErr != nil {
			return
		}
		out := filepath.Join(dir, "pod.wasm")
		args := append(slices.Clone(podFlags), "-I", ".", "-o", out, filepath.Join("testdata", "pod.c"), calls)
		if msg, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			podErr = fmt.Errorf("clang %s: %v\n%s", strings.Join(args, " "), err, msg)
			return
		}
		podWasm, podErr = os.ReadFile(out)
	})
	if podErr != nil {
		t.Fatalf("building the C test pod: %v", podErr)
	}
	return podWasm
}

func TestHeaderDeclaresTheTableImports(t *testing.T) {
	cm := testabi.Compile(t, buildPod(t))
	testabi.CheckImports(t, cm, "k32_app_abi.h", "k32.h must need no libc")
	testabi.CheckExports(t, cm, "K32_EXPORT", "k32_handle", "k32_main")
}

// recordingHost is a k32 host for the helper test: it answers the getters
// the pod uses and records what the pod sends.
type recordingHost struct {
	testabi.Recorder
	env  map[string]string
	path string
}

// answer implements the getters the pod uses in k32_handle.
func (h *recordingHost) answer(c testabi.Call) (uint64, bool) {
	noEnt := api.EncodeI32(int32(abi.ErrNoEnt))
	switch c.Name {
	case "k32_env_get":
		if v, ok := h.env[c.Str(0)]; ok {
			return c.Put(v, 2), true
		}
		return noEnt, true
	case "k32_req_header":
		return noEnt, true
	case "k32_req_path":
		return c.Put(h.path, 0), true
	}
	return 0, false
}

func TestHelpersAgainstARecordingHost(t *testing.T) {
	wasm := buildPod(t)
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)

	for _, tc := range []struct {
		name, path    string
		status        uint32
		headers, body string
	}{
		{"known path", "/hello", 201, "Content-Type: text/plain", "hi"},
		{"unknown path longer than the buffer", "/hello/and/more/than/sixteen", 404, "Content-Type: text/plain", "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &recordingHost{env: map[string]string{"GREETING": "hello, world"}, path: tc.path}
			testabi.Host(t, r, &h.Recorder, h.answer)
			pod, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				t.Fatalf("instantiating the C test pod: %v", err)
			}
			defer pod.Close(ctx)

			res, err := pod.ExportedFunction("k32_handle").Call(ctx)
			if err != nil {
				t.Fatalf("k32_handle: %v", err)
			}
			if got := api.DecodeI32(res[0]); got != 0 {
				t.Errorf("k32_handle returned %d, want 0 (k32_respond succeeded)", got)
			}
			// k32_env cut "hello, world" to sizeof greeting - 1 = 7 bytes.
			if want := []string{"1 hello, "}; !slices.Equal(h.Logs, want) {
				t.Errorf("logs %q, want %q", h.Logs, want)
			}
			if h.Status != tc.status || strings.Join(h.Headers, "\n") != tc.headers || h.Body != tc.body {
				t.Errorf("response %d %q %q, want %d %q %q", h.Status, h.Headers, h.Body, tc.status, tc.headers, tc.body)
			}
		})
	}
}

// TestHeadersCompileAsCPlusPlus checks the extern "C" guards and that the
// static inline helpers are valid C++ too.
func TestHeadersCompileAsCPlusPlus(t *testing.T) {
	clang := requireClang(t)
	src := filepath.Join(t.TempDir(), "pod.cc")
	code := "#include \"k32.h\"\nK32_EXPORT(k32_handle) int32_t k32_handle(void) { return k32_respond(200, \"text/plain\", K32_STR(\"ok\")); }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--target=wasm32-wasi", "-x", "c++", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", ".", src}
	if msg, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
		t.Fatalf("clang %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
}

func TestHeadersEmbedsBothHeaders(t *testing.T) {
	for _, name := range []string{"k32_app_abi.h", "k32.h"} {
		embedded, err := fs.ReadFile(csdk.Headers, name)
		if err != nil {
			t.Errorf("csdk.Headers: %v", err)
			continue
		}
		onDisk, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if string(embedded) != string(onDisk) {
			t.Errorf("csdk.Headers %s differs from the file on disk", name)
		}
	}
}

// TestEveryHelperIsInTheABIDoc: each public helper of k32.h (a name without
// a trailing _) is listed in docs/abi.md, so the list stays whole.
func TestEveryHelperIsInTheABIDoc(t *testing.T) {
	header, err := os.ReadFile("k32.h")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "abi.md"))
	if err != nil {
		t.Fatal(err)
	}
	helpers := regexp.MustCompile(`(?m)^(?:static inline [\w ]+?\**\s*(\w+)\(|#define (\w+)\()`).FindAllStringSubmatch(string(header), -1)
	if len(helpers) < 2 {
		t.Fatalf("found %d helpers in k32.h; the pattern no longer matches it", len(helpers))
	}
	for _, m := range helpers {
		name := m[1] + m[2]
		if strings.HasSuffix(name, "_") {
			continue
		}
		if !strings.Contains(string(doc), "`"+name+"(") {
			t.Errorf("k32.h's %s is not listed in docs/abi.md (abi/internal/gen/abi.md.tmpl)", name)
		}
	}
}

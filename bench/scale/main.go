// Command scale measures how `kube32 serve` starts with many pods: N
// one-page C pods (resources.limits.memory 64Ki, one module shared by all),
// for N = 200 and N = 2000, each N in a fresh child process running serve
// in-process. It prints the time from the start of serve to ready (what GET /readyz
// answers, which waits for every pod to be Running), the process's CPU
// time (user and system) by then, its RSS (VmRSS) at that moment, and the
// host memory each further pod costs, (RSS(2000) − RSS(200)) / 1800, also
// less the 64 KiB of a one-page linear memory (of which a pod touches
// only some pages, so that figure is the conservative one).
//
//	go run ./bench/scale [-n 200,2000] [-services] [-rounds 3] [-cpuprofile FILE]
//
// The baseline of the time (wall and CPU) is the linear extrapolation from
// the smallest N: ratio = t(N) / (N/N₀ · t(N₀)), which is 1.0 for a start
// that grows linearly with the pod count and above it for one that grows
// faster. On a loaded machine the CPU time is the steadier of the two. The
// baseline of the memory is a plain wazero program in a child process of
// its own that compiles the module once and instantiates it N times in one
// Runtime with WASI, which is the least a wazero host can keep per
// instance. With -services every pod also gets a Service and an Ingress
// path of its own. -cpuprofile writes a CPU profile of the largest N's
// start (the last round), -memprofile a heap profile of it once ready,
// after a collection (what serve keeps, not its garbage). The memory is
// read before this program lists the pods; the Go heap is printed in use
// at ready (garbage included, which the RSS holds too) and after a
// collection.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/bench/internal/report"
	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/compile"
)

// imageName is the one module every pod runs: wasm://embedded/page.
const imageName = "page"

// pageSize is a one-page pod's linear memory.
const pageSize = 64 << 10

// podSource is the c-http template's pod: it answers its GREETING.
const podSource = `#include "k32.h"

static char greeting[128];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    if (k32_env("GREETING", greeting, sizeof greeting) < 0) {
        return k32_respond(500, "text/plain", K32_STR("GREETING is not set\n"));
    }
    k32_resp_header(K32_STR("Content-Type"), K32_STR("text/plain; charset=utf-8"));
    k32_write_str(greeting);
    k32_write_str("\n");
    return 0;
}
`

// measurement is what one child process reports.
type measurement struct {
	Pods    int           `json:"pods"`
	Running int           `json:"running"`
	Ready   time.Duration `json:"ready"`
	RSS     int64         `json:"rss"`  // bytes
	Heap    uint64        `json:"heap"` // Go heap in use, bytes
	Live    uint64        `json:"live"` // Go heap after a collection (serve only), bytes
	CPU     time.Duration `json:"cpu"`  // user and system time of the process
}

func main() {
	counts := flag.String("n", "200,2000", "pod counts, comma-separated, smallest first")
	services := flag.Bool("services", false, "give every pod a Service and an Ingress path")
	rounds := flag.Int("rounds", 3, "runs of each count; the median is reported")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the largest count's start to this file")
	memProfile := flag.String("memprofile", "", "write a heap profile of the largest count, once ready, to this file")
	child := flag.String("child", "", "internal: measure in this process (serve or plain)")
	dir := flag.String("dir", "", "internal: the images and manifests of the child")
	n := flag.Int("pods", 0, "internal: the child's pod count")
	flag.Parse()
	var err error
	switch *child {
	case "serve":
		err = childServe(*dir, *n, *cpuProfile, *memProfile)
	case "plain":
		err = childPlain(*dir, *n)
	case "":
		err = run(*counts, *services, *rounds, *cpuProfile, *memProfile)
	default:
		err = fmt.Errorf("-child %q: want serve or plain", *child)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/scale:", err)
		os.Exit(1)
	}
}

func run(countList string, services bool, rounds int, cpuProfile, memProfile string) error {
	var counts []int
	for _, s := range strings.Split(countList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-n %q: want positive counts", countList)
		}
		counts = append(counts, n)
	}
	sort.Ints(counts)
	if rounds < 1 {
		rounds = 1
	}
	tmp, err := os.MkdirTemp("", "kube32-bench-scale")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := buildImages(tmp); err != nil {
		return err
	}
	serve := map[int]measurement{}
	plain := map[int]measurement{}
	for _, n := range counts {
		dir := filepath.Join(tmp, strconv.Itoa(n))
		if err := writeManifest(dir, n, services); err != nil {
			return err
		}
		var ms, ps []measurement
		for r := 0; r < rounds; r++ {
			var profiles []string
			if n == counts[len(counts)-1] && r == rounds-1 {
				profiles = []string{cpuProfile, memProfile}
			}
			m, err := runChild(tmp, dir, "serve", n, profiles...)
			if err != nil {
				return err
			}
			ms = append(ms, m)
			if p, err := runChild(tmp, dir, "plain", n); err != nil {
				return err
			} else {
				ps = append(ps, p)
			}
		}
		serve[n], plain[n] = median(ms), median(ps)
	}
	printTable(os.Stdout, counts, services, rounds, serve, plain)
	return nil
}

// printTable prints the table, then the RESULT lines of bench/all.
func printTable(w io.Writer, counts []int, services bool, rounds int, serve, plain map[int]measurement) {
	what := "pods only"
	if services {
		what = "a Service and an Ingress path per pod"
	}
	fmt.Fprintf(w, "serve with N one-page C pods (64Ki, one module), %s; median of %d\n", what, rounds)
	fmt.Fprintf(w, "%6s %8s %10s %10s %7s %10s %10s %7s %12s %12s\n", "N", "running", "ready", "linear", "ratio", "CPU", "linear", "ratio", "RSS", "plain RSS")
	n0 := counts[0]
	for _, n := range counts {
		m, p := serve[n], plain[n]
		linear := time.Duration(float64(serve[n0].Ready) * float64(n) / float64(n0))
		linearCPU := time.Duration(float64(serve[n0].CPU) * float64(n) / float64(n0))
		fmt.Fprintf(w, "%6d %8d %10s %10s %7.2f %10s %10s %7.2f %9.1f MB %9.1f MB\n", n, m.Running, m.Ready.Round(time.Millisecond),
			linear.Round(time.Millisecond), float64(m.Ready)/float64(linear),
			m.CPU.Round(time.Millisecond), linearCPU.Round(time.Millisecond), float64(m.CPU)/float64(linearCPU), mb(m.RSS), mb(p.RSS))
	}
	if len(counts) > 1 {
		n1 := counts[len(counts)-1]
		// What each further pod adds to the process: its linear memory
		// counts only in the pages it touched.
		per := func(ms map[int]measurement) float64 { return float64(ms[n1].RSS-ms[n0].RSS) / float64(n1-n0) }
		fmt.Fprintf(w, "host memory per pod, (RSS(%d)-RSS(%d))/%d:\n", n1, n0, n1-n0)
		fmt.Fprintf(w, "  kube32 serve:               %7.0f KB  (%.0f KB beyond a 64 KiB linear memory)\n", per(serve)/1000, (per(serve)-pageSize)/1000)
		fmt.Fprintf(w, "  plain wazero (one Runtime): %7.0f KB\n", per(plain)/1000)
		fmt.Fprintf(w, "  ratio kube32/plain:         %7.2f\n", per(serve)/per(plain))
		fmt.Fprintf(w, "Go heap in use at ready: %.1f MB (N=%d), %.1f MB (N=%d); after a collection: %.1f MB, %.1f MB (%.1f KB per further pod)\n",
			mb(int64(serve[n0].Heap)), n0, mb(int64(serve[n1].Heap)), n1, mb(int64(serve[n0].Live)), mb(int64(serve[n1].Live)),
			float64(int64(serve[n1].Live)-int64(serve[n0].Live))/float64(n1-n0)/1000)
		linear := time.Duration(float64(serve[n0].Ready) * float64(n1) / float64(n0))
		report.Print(fmt.Sprintf("scale-ready-%d", n1), float64(serve[n1].Ready.Milliseconds()), float64(linear.Milliseconds()), "ms")
		report.Print("scale-memory-per-pod", per(serve)/1000, per(plain)/1000, "KB")
	}
}

func mb(b int64) float64 { return float64(b) / 1e6 }

// median picks the run with the median ready time, and the median RSS.
func median(ms []measurement) measurement {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Ready < ms[j].Ready })
	m := ms[len(ms)/2]
	rss := make([]int64, len(ms))
	for i := range ms {
		rss[i] = ms[i].RSS
	}
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	m.RSS = rss[len(rss)/2]
	return m
}

// buildImages compiles the pod as `kube32 build` does for a 64Ki limit and
// writes it where wasm://embedded/page is found.
func buildImages(tmp string) error {
	src := filepath.Join(tmp, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "main.c"), []byte(podSource), 0o644); err != nil {
		return err
	}
	mod, err := compile.Compile(context.Background(), compile.Job{
		Name: imageName, Language: "c", SourceDir: src, MemoryLimit: pageSize, CacheDir: filepath.Join(tmp, "cache"),
	})
	if err != nil {
		return err
	}
	wasmPath := filepath.Join(tmp, "images", images.InRoot(images.Firmware, images.FirmwareWasmDir), imageName+".wasm")
	if err := os.MkdirAll(filepath.Dir(wasmPath), 0o755); err != nil {
		return err
	}
	return os.WriteFile(wasmPath, mod.Wasm, 0o644)
}

// writeManifest writes n pods (and with services a Service and an Ingress
// each) to dir/pods.yaml.
func writeManifest(dir string, n int, services bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("page-%04d", i)
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Pod
metadata: {name: %[1]s, labels: {app: %[1]s}}
spec:
  containers:
    - name: page
      image: wasm://embedded/%[2]s
      ports: [{containerPort: 7000, name: http}]
      env: [{name: GREETING, value: "hello from %[1]s"}]
      resources: {limits: {memory: 64Ki}}
`, name, imageName)
		if services {
			fmt.Fprintf(&b, `---
apiVersion: v1
kind: Service
metadata: {name: %[1]s}
spec:
  selector: {app: %[1]s}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: %[1]s}
spec:
  rules:
    - http:
        paths:
          - {path: /%[1]s, pathType: Prefix, backend: {service: {name: %[1]s, port: {name: http}}}}
`, name)
		}
	}
	return os.WriteFile(filepath.Join(dir, "pods.yaml"), b.Bytes(), 0o644)
}

// runChild runs this program as a child measuring one count.
// profiles are the CPU and heap profiles' files ("" for none).
func runChild(tmp, dir, mode string, n int, profiles ...string) (measurement, error) {
	exe, err := os.Executable()
	if err != nil {
		return measurement{}, err
	}
	args := []string{"-child", mode, "-dir", dir, "-pods", strconv.Itoa(n)}
	for i, flag := range []string{"-cpuprofile", "-memprofile"} {
		if i < len(profiles) && profiles[i] != "" {
			args = append(args, flag, profiles[i])
		}
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "KUBE32_BENCH_IMAGES="+filepath.Join(tmp, "images"), "KUBE32_BENCH_CACHE="+filepath.Join(tmp, "wazero"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return measurement{}, fmt.Errorf("%s with %d pods: %v\n%s", mode, n, err, stderr.Bytes())
	}
	var m measurement
	if err := json.Unmarshal(out, &m); err != nil {
		return measurement{}, fmt.Errorf("%s with %d pods: %v: %q", mode, n, err, out)
	}
	return m, nil
}

// childServe runs serve in this process on the count's manifest and reports
// when it is ready.
func childServe(dir string, n int, profile, memProfile string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	start := time.Now()
	// load.Serve picks free ports, so that runs never collide.
	c, _, err := load.Serve(ctx, cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: io.Discard}, os.Getenv("KUBE32_BENCH_CACHE"),
		"--images", os.Getenv("KUBE32_BENCH_IMAGES"), "-f", filepath.Join(dir, "pods.yaml"))
	if err != nil {
		return err
	}
	ready := time.Since(start)
	if profile != "" {
		pprof.StopCPUProfile()
	}
	// The process as serve left it, before this program's own work
	// (listing the pods, a profile) allocates anything.
	m, err := measure(measurement{Pods: n, Ready: ready})
	if err != nil {
		return err
	}
	m.Running = running(c)
	goruntime.GC()
	var s goruntime.MemStats
	goruntime.ReadMemStats(&s)
	m.Live = s.HeapAlloc
	if memProfile != "" {
		// After the collection: the profile's in-use figures are what
		// serve keeps, not its garbage.
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(m)
}

// running counts the Running pods in the store.
func running(c *host.Cluster) int {
	count := 0
	for _, o := range c.List("Pod", "default") {
		if o.(*corev1.Pod).Status.Phase == corev1.PodRunning {
			count++
		}
	}
	return count
}

// printMeasurement adds the process's memory to m and prints it as JSON.
func printMeasurement(m measurement) error {
	m, err := measure(m)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(m)
}

// measure adds the process's memory and CPU time to m.
func measure(m measurement) (measurement, error) {
	rss, err := vmRSS()
	if err != nil {
		return m, err
	}
	m.RSS = rss
	m.Heap = heapInUse()
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return m, err
	}
	m.CPU = time.Duration(u.Utime.Nano() + u.Stime.Nano())
	return m, nil
}

// vmRSS reads this process's resident set size from /proc/self/status.
func vmRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/self/status: no VmRSS")
}

// heapInUse is the Go heap in use.
func heapInUse() uint64 {
	var s goruntime.MemStats
	goruntime.ReadMemStats(&s)
	return s.HeapInuse
}

// Command api measures the API server's list and watch throughput in
// objects per second, each side by side with a baseline in the same run: a
// plain net/http handler that JSON-encodes the same objects (for list) or
// streams the same watch events from a channel (for watch), so the figures
// show what the server adds over encoding alone.
//
//	go run ./bench/api [-n 1000] [-d 3s] [-c 4] [-events 20000] [-cpuprofile FILE] [-memprofile FILE]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/bench/internal/report"
)

func main() {
	n := flag.Int("n", 1000, "pods in the store")
	duration := flag.Duration("d", 3*time.Second, "how long to load each list target")
	concurrency := flag.Int("c", 4, "concurrent list clients")
	events := flag.Int("events", 20000, "watch events to stream")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memProfile := flag.String("memprofile", "", "write an allocation profile of the whole run to this file")
	flag.Parse()
	stop := profile(*cpuProfile, *memProfile)
	err := run(*n, *duration, *concurrency, *events)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n int, duration time.Duration, concurrency, events int) error {
	s := host.NewAPI("")
	if err := s.ApplyObject(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := s.ApplyObject(benchPod(i)); err != nil {
			return err
		}
	}
	api, err := serve(s)
	if err != nil {
		return err
	}
	pods := s.List("Pod", "default")
	plain, err := serve(plainHandler(pods, events))
	if err != nil {
		return err
	}

	fmt.Printf("API list and watch throughput, %d pods, %d clients, %s per list target\n\n", n, concurrency, duration)
	fmt.Printf("%-34s %14s %14s %7s\n", "", "kube32 API", "plain net/http", "ratio")
	listPath := "/api/v1/namespaces/default/pods"
	for _, row := range []struct {
		name   string
		accept string
		result string // its report line
	}{
		{"list (JSON), objects/s", "application/json", "api-list-json"},
		{"list (kubectl get Table), objects/s", "application/json;as=Table;v=v1;g=meta.k8s.io", "api-list-table"},
	} {
		a, err := listRate(api+listPath, row.accept, n, duration, concurrency)
		if err != nil {
			return err
		}
		b, err := listRate(plain+"/list", row.accept, n, duration, concurrency)
		if err != nil {
			return err
		}
		fmt.Printf("%-34s %14.0f %14.0f %6.2fx\n", row.name, a, b, a/b)
		report.Print(row.result, a, b, "objects/s")
	}

	a, err := apiWatchRate(api, s, events)
	if err != nil {
		return err
	}
	b, err := watchRate(plain+"/watch", events, nil)
	if err != nil {
		return err
	}
	fmt.Printf("%-34s %14.0f %14.0f %6.2fx\n", "watch, events/s", a, b, a/b)
	report.Print("api-watch", a, b, "events/s")
	fmt.Println("\nbaselines: both list rows, the same pods as a JSON PodList from a plain handler;")
	fmt.Println("watch, the same kind of events (a pod with a changed label) encoded from a channel.")
	fmt.Println("kube32 watch: each event is a write through admission and the store (defaults, validation, copy, history, fan-out), then filtered and encoded.")
	return nil
}

func benchPod(i int) *corev1.Pod {
	name := "pod-" + strconv.Itoa(i)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "bench"}},
		Spec: corev1.PodSpec{NodeName: "kube32-control-plane", Containers: []corev1.Container{{
			Name: "echo", Image: "wasm://embedded/echo", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 7000}},
			Env: []corev1.EnvVar{{Name: "GREETING", Value: "hello"}},
		}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

func serve(h http.Handler) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go http.Serve(l, h)
	return "http://" + l.Addr().String(), nil
}

// plainHandler is the baseline: the same pods encoded by encoding/json,
// and a watch stream of the same events fed from a channel.
func plainHandler(pods []runtime.Object, events int) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/list", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"kind": "PodList", "apiVersion": "v1", "metadata": map[string]string{"resourceVersion": "1"}, "items": pods})
	})
	mux.HandleFunc("/watch", func(w http.ResponseWriter, r *http.Request) {
		ch := make(chan runtime.Object, 64)
		go func() {
			for i := 0; i < events; i++ {
				p := pods[i%len(pods)].DeepCopyObject().(*corev1.Pod)
				p.Labels["n"] = strconv.Itoa(i)
				ch <- p
			}
			close(ch)
		}()
		w.Header().Set("Content-Type", "application/json")
		flusher := w.(http.Flusher)
		for p := range ch {
			raw, _ := json.Marshal(p)
			line, _ := json.Marshal(&metav1.WatchEvent{Type: "MODIFIED", Object: runtime.RawExtension{Raw: raw}})
			w.Write(append(line, '\n'))
			flusher.Flush()
		}
	})
	return mux
}

// listRate lists url with concurrency clients for duration and returns
// objects per second.
func listRate(url, accept string, n int, duration time.Duration, concurrency int) (float64, error) {
	var lists atomic.Int64
	var firstErr error
	var once sync.Once
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}}
	start := time.Now()
	for i := 0; i < concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Accept", accept)
				resp, err := client.Do(req)
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("GET %s: %s", url, resp.Status)
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lists.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(lists.Load()) * float64(n) / time.Since(start).Seconds(), firstErr
}

// apiWatchRate opens a watch on the API server and changes pods, through
// admission as a client's writes, until the client has read events events.
func apiWatchRate(api string, s *host.API, events int) (float64, error) {
	url := fmt.Sprintf("%s/api/v1/namespaces/default/pods?watch=true&resourceVersion=%d", api, s.Version())
	return watchRate(url, events, func() {
		pods := s.List("Pod", "default")
		for i := 0; i < events; i++ {
			p := pods[i%len(pods)].(*corev1.Pod)
			p.Labels["n"] = strconv.Itoa(i)
			if err := s.ApplyObject(p); err != nil {
				panic(err) // a pod the bench made is valid
			}
		}
	})
}

// watchRate reads events watch events from url (starting produce, if
// any, once the stream is open) and returns events per second.
func watchRate(url string, events int, produce func()) (float64, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	start := time.Now()
	if produce != nil {
		go produce()
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	got := 0
	for got < events && sc.Scan() {
		got++
	}
	if got < events {
		return 0, fmt.Errorf("watch %s ended after %d of %d events: %v", url, got, events, sc.Err())
	}
	return float64(got) / time.Since(start).Seconds(), nil
}

// Package k32http brings net/http to kube32 pods. Handle serves a net/http
// Handler in a pod, so code and routers written for net/http
// (http.ServeMux, …) run unchanged:
//
//	package main
//
//	import (
//		"net/http"
//
//		"github.com/kube32/kube32/sdk/go/k32http"
//	)
//
//	func init() {
//		mux := http.NewServeMux()
//		mux.HandleFunc("GET /hello/{name}", func(w http.ResponseWriter, r *http.Request) {
//			w.Write([]byte("hello " + r.PathValue("name") + "\n"))
//		})
//		k32http.Handle(mux)
//	}
//
//	func main() {}
//
// Its Transport goes the other way: an http.RoundTripper over
// k32_http_call, so the pod's http.Client calls Services and outside hosts:
//
//	client := &http.Client{Transport: k32http.Transport{}}
//	resp, err := client.Get("http://echo/ping")
//
// net/http makes a module several megabytes larger than one using package k32
// alone, and TinyGo supports it only in part; that is why it lives apart.
package k32http

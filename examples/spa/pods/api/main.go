// Command api is the pod behind /api of examples/spa: GET /api/items answers
// JSON with the greeting and the items of the pod's environment (GREETING,
// and ITEMS with one item per line), which the page renders.
//
// kube32 build compiles it with the Go SDK that the kube32 CLI carries.
package main

import (
	"encoding/json"
	"strings"

	k32 "github.com/kube32/kube32/sdk/go"
)

// item is one entry of the list the page shows.
type item struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

// itemsReply is the body of GET /api/items.
type itemsReply struct {
	Greeting string `json:"greeting"`
	Items    []item `json:"items"`
}

// Go's WASI reactor runs init, not main: register the handler here.
func init() {
	k32.HandleFunc(serve)
}

func serve(w k32.ResponseWriter, r *k32.Request) {
	switch {
	case r.Path != "/api/items":
		reply(w, 404, map[string]string{"error": "no such API path", "path": r.Path})
	case r.Method != "GET" && r.Method != "HEAD":
		w.Header().Set("Allow", "GET, HEAD")
		reply(w, 405, map[string]string{"error": "method not allowed", "method": r.Method})
	default:
		reply(w, 200, itemsReply{Greeting: k32.Getenv("GREETING"), Items: items(k32.Getenv("ITEMS"))})
	}
}

// items turns the ITEMS variable into the list, one item per non-empty line.
func items(env string) []item {
	list := []item{}
	for _, line := range strings.Split(env, "\n") {
		if title := strings.TrimSpace(line); title != "" {
			list = append(list, item{ID: len(list) + 1, Title: title})
		}
	}
	return list
}

func reply(w k32.ResponseWriter, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		k32.Error(w, "encoding the reply: "+err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// The list changes with the pod's environment: never cache it.
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func main() {}

package channel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Path is where the API server serves the channels: POST Path/<topic>
// publishes the request body on <topic>, GET Path?watch=true streams every
// message as one JSON Message per line. It is a kube32 extension under the
// kube32.io group; the bearer token applies as to the rest of the API.
const Path = "/apis/kube32.io/v1/channels"

// HeaderFrom names the publisher of a POSTed message.
const HeaderFrom = "X-Kube32-From"

// followerQueueLen is the queue of a worker following the control plane:
// longer than a pod's, since it carries every topic.
const followerQueueLen = 4096

// Handler serves Path for the control plane's hub h.
func Handler(h *Hub) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.EscapedPath(), Path)
		switch {
		case !ok:
			http.NotFound(w, r)
		case rest == "" || rest == "/":
			if r.Method != http.MethodGet {
				w.Header().Set("Allow", "GET")
				http.Error(w, "GET "+Path+"?watch=true streams the messages; POST "+Path+"/<topic> publishes", http.StatusMethodNotAllowed)
				return
			}
			serveWatch(h, w, r)
		default:
			if r.Method != http.MethodPost {
				w.Header().Set("Allow", "POST")
				http.Error(w, "POST "+Path+"/<topic> publishes the request body on <topic>", http.StatusMethodNotAllowed)
				return
			}
			topic, err := url.PathUnescape(strings.TrimPrefix(rest, "/"))
			if err != nil {
				http.Error(w, "bad topic: "+err.Error(), http.StatusBadRequest)
				return
			}
			servePublish(h, w, r, topic)
		}
	})
}

func servePublish(h *Hub, w http.ResponseWriter, r *http.Request, topic string) {
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxDataLen+1))
	if err != nil {
		http.Error(w, "reading the message: "+err.Error(), http.StatusBadRequest)
		return
	}
	from := r.Header.Get(HeaderFrom)
	if from == "" {
		from = "api"
	}
	if err := h.Publish(r.Context(), from, topic, data); err != nil {
		status := http.StatusBadRequest
		if len(data) > MaxDataLen {
			status = http.StatusRequestEntityTooLarge
		}
		http.Error(w, fmt.Sprintf("publishing on %q: %v", topic, err), status)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// serveWatch streams every message of h until the client goes or the
// server shuts down. The subscription exists before the head is sent, so a
// follower that got the head misses nothing published after.
func serveWatch(h *Hub, w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	name := "follower " + r.RemoteAddr
	if from := r.Header.Get(HeaderFrom); from != "" {
		name = "node " + from
	}
	sub := h.Subscribe(name, nil, followerQueueLen)
	defer sub.Close()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	enc := json.NewEncoder(w)
	for {
		ms, err := sub.Next(r.Context())
		if err != nil {
			return
		}
		for _, m := range ms {
			if enc.Encode(m) != nil {
				return
			}
		}
		flusher.Flush()
	}
}

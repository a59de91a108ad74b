package channel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/apistatus"
	"github.com/kube32/kube32/host/internal/httplimit"
)

// followerQueueLen is the queue of a worker following the control plane:
// longer than a pod's, since it carries every topic.
const followerQueueLen = 4096

// Mount serves abi.ChannelsPath for the control plane's hub h on the API
// port, behind its gate: workers forward their pods' publishes there and
// follow every message from there with the cluster token.
func Mount(port *apiauth.Mux, h *Hub) {
	handler := Handler(h)
	port.Handle(abi.ChannelsPath, handler)
	port.Handle(abi.ChannelsPath+"/", handler)
}

// Handler serves abi.ChannelsPath for the control plane's hub h; a
// publish's body must be of apiauth.ChannelBody's media types.
func Handler(h *Hub) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.EscapedPath(), abi.ChannelsPath)
		switch {
		case !ok:
			http.NotFound(w, r)
		case rest == "" || rest == "/":
			if r.Method != http.MethodGet {
				w.Header().Set("Allow", "GET")
				http.Error(w, "GET "+abi.ChannelsPath+"?watch=true streams the messages; POST "+abi.ChannelsPath+"/<topic> publishes", http.StatusMethodNotAllowed)
				return
			}
			serveWatch(h, w, r)
		default:
			if r.Method != http.MethodPost {
				w.Header().Set("Allow", "POST")
				http.Error(w, "POST "+abi.ChannelsPath+"/<topic> publishes the request body on <topic>", http.StatusMethodNotAllowed)
				return
			}
			if err := apiauth.CheckBody(r, apiauth.ChannelBody); err != nil {
				apistatus.Write(w, err)
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
	data, err := io.ReadAll(io.LimitReader(r.Body, maxDataLen+1))
	if err != nil {
		http.Error(w, "reading the message: "+err.Error(), http.StatusBadRequest)
		return
	}
	from := r.Header.Get(abi.HeaderFrom)
	if from == "" {
		from = "api"
	}
	if err := h.Publish(r.Context(), from, topic, data); err != nil {
		status := http.StatusBadRequest
		if len(data) > maxDataLen {
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
	if err := httplimit.Stream(r, httplimit.APIStream); err != nil {
		httplimit.Refuse(w, err) // the follower tries again (upstream.go)
		return
	}
	name := "follower " + r.RemoteAddr
	if from := r.Header.Get(abi.HeaderFrom); from != "" {
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

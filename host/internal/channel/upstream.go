package channel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
)

// retryInterval is the wait before a worker tries the control plane again.
const retryInterval = 500 * time.Millisecond

// Upstream is the control plane's API server as a worker's hub reaches it.
type Upstream struct {
	API   string // http://host:port
	Token string // bearer token; "" for none
	Node  string // this node's name, sent as abi.HeaderFrom on the stream
	// Client makes the requests; nil means a client without timeouts
	// (the stream is long-lived).
	Client *http.Client
}

func (u *Upstream) client() *http.Client {
	if u.Client != nil {
		return u.Client
	}
	return http.DefaultClient
}

func (u *Upstream) request(ctx context.Context, method, target string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(u.API, "/")+target, body)
	if err != nil {
		return nil, err
	}
	if u.Token != "" {
		req.Header.Set("Authorization", "Bearer "+u.Token)
	}
	return req, nil
}

// Run carries a worker's hub's traffic until ctx ends: it forwards the
// queued publishes to the control plane, in order, and delivers what the
// control plane streams back. A hub without Upstream returns at once.
func (h *Hub) Run(ctx context.Context) {
	if h.opts.Upstream == nil {
		return
	}
	done := make(chan struct{})
	go func() { defer close(done); h.forward(ctx) }()
	h.follow(ctx)
	<-done
}

// Connected reports whether a worker's hub follows the control plane's
// stream now (always true on the control plane).
func (h *Hub) Connected() bool {
	if h.opts.Upstream == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.connected
}

func (h *Hub) setConnected(v bool) {
	h.mu.Lock()
	h.connected = v
	h.mu.Unlock()
}

// forward POSTs the outbox to the control plane one message at a time; a
// failed message goes back to the front and is tried again.
func (h *Hub) forward(ctx context.Context) {
	up := h.opts.Upstream
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.outbox.ready:
		}
		ms := h.outbox.take()
		for i, m := range ms {
			err := up.publish(ctx, m)
			if err == nil {
				if failing {
					h.logf("[CHANNEL] forwarding to %s works again", up.API)
					failing = false
				}
				continue
			}
			if ctx.Err() != nil {
				return
			}
			if _, ok := err.(permanent); ok {
				h.logf("[CHANNEL] the control plane refused a message from %s on %s: %v (dropped)", m.From, m.Topic, err)
				continue
			}
			if !failing {
				h.logf("[CHANNEL] forwarding a message on %s to %s: %v (retrying)", m.Topic, up.API, err)
				failing = true
			}
			h.outbox.unshift(ms[i:])
			select {
			case <-ctx.Done():
				return
			case <-time.After(retryInterval):
			}
			break
		}
	}
}

// permanent is an answer that retrying will not change (a bad topic).
type permanent struct{ error }

func (u *Upstream) publish(ctx context.Context, m Message) error {
	req, err := u.request(ctx, http.MethodPost, abi.ChannelsPath+"/"+url.PathEscape(m.Topic), bytes.NewReader(m.Data))
	if err != nil {
		return err
	}
	req.Header.Set(abi.HeaderFrom, m.From)
	req.Header.Set("Content-Type", apiauth.ChannelContentType)
	resp, err := u.client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return nil
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusRequestEntityTooLarge:
		return permanent{fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))}
	}
	return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))
}

// follow streams the control plane's messages into the local subscribers,
// reconnecting until ctx ends.
func (h *Hub) follow(ctx context.Context) {
	up := h.opts.Upstream
	failing := false
	for ctx.Err() == nil {
		err := h.followOnce(ctx)
		h.setConnected(false)
		if ctx.Err() != nil {
			return
		}
		if !failing {
			h.logf("[CHANNEL] following the channels of %s: %v (retrying)", up.API, err)
			failing = true
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(retryInterval):
		}
	}
}

func (h *Hub) followOnce(ctx context.Context) error {
	up := h.opts.Upstream
	req, err := up.request(ctx, http.MethodGet, abi.ChannelsPath+"?watch=true", nil)
	if err != nil {
		return err
	}
	if up.Node != "" {
		req.Header.Set(abi.HeaderFrom, up.Node)
	}
	resp, err := up.client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	h.setConnected(true)
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	dec := json.NewDecoder(r)
	for {
		var m Message
		if err := dec.Decode(&m); err != nil {
			if err == io.EOF {
				return fmt.Errorf("the stream ended")
			}
			return err
		}
		h.Deliver(m)
	}
}

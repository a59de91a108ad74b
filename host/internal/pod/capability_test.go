package pod

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// fakeCaller answers every call with 201 "pong" and records it.
type fakeCaller struct{ got Call }

func (f *fakeCaller) HTTPCall(_ context.Context, c Call) (CallResult, error) {
	f.got = c
	return CallResult{Status: 201, Header: http.Header{"X-Reply": {"pong"}}, Body: []byte("pong")}, nil
}

// fakePublisher records what was published.
type fakePublisher struct {
	mu    sync.Mutex
	topic string
}

func (f *fakePublisher) Publish(_ context.Context, from, topic string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.topic = from + " " + topic + " " + string(data)
	return nil
}

func TestCapabilityGates(t *testing.T) {
	module := onePage(t, "probe")
	tests := []struct {
		name      string
		caps      []string
		call, pub abi.Errno
	}{
		{"no capabilities", nil, abi.ErrPerm, abi.ErrPerm},
		{"SERVICE_CALL only", []string{"SERVICE_CALL"}, abi.ErrNotSup, abi.ErrPerm},
		{"CHANNEL_IPC only", []string{"CHANNEL_IPC"}, abi.ErrPerm, abi.ErrNotSup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := serve(t, startPod(t, module, func(c *Config) { c.Capabilities = tt.caps }))
			wantLines(t, get(t, url+"/call").body, "call="+testpods.Code(tt.call), "status="+testpods.Code(abi.ErrNoEnt))
			wantLines(t, get(t, url+"/publish").body, "publish="+testpods.Code(tt.pub))
		})
	}
}

func TestCallAndPublishSeams(t *testing.T) {
	caller, pub := &fakeCaller{}, &fakePublisher{}
	url := serve(t, startPod(t, onePage(t, "probe"), func(c *Config) {
		c.Capabilities = []string{"SERVICE_CALL", "CHANNEL_IPC"}
		c.Caller, c.Publisher = caller, pub
	}))
	wantLines(t, get(t, url+"/call").body, "call=201", "status=201", "x-reply=pong", "body=pong")
	if caller.got.Method != "GET" || caller.got.URL != "http://backend/ping" || caller.got.Header.Get("X-From") != "probe" ||
		caller.got.From != "default/probe" || caller.got.RespCap != 64 || caller.got.Timeout != abi.CallTimeoutDefault {
		t.Errorf("Caller got %+v", caller.got)
	}
	wantLines(t, get(t, url+"/publish").body, "publish=0")
	if pub.topic != "default/probe t x" {
		t.Errorf("Publisher got %q", pub.topic)
	}
}

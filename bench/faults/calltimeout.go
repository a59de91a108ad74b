package main

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// runCallTimeout has the relay pod web-cp call the sleeper pod
// (internal/testkit/testpods/c/sleeper.c) with timeout_ms 2000 while the sleeper
// sleeps 8 s or loops forever (docs/calls.md, "Timeouts"): on the control
// plane, where the call runs in-process, and from the worker's relay pod b
// for comparison. It reports how long each call took, its result, and
// the restarts of the caller and of the sleeper it caused.
func runCallTimeout(s *server) []row {
	const fault = "call timeout 2000 ms"
	if err := s.startSleeper(); err != nil {
		return failed(fault, err)
	}
	var rows []row
	for _, c := range []struct {
		what, podURL, caller, path string
	}{
		{"same node, callee sleeps 8 s", s.c.PodURL(), "web-cp", "/sleep?8000"},
		{"same node, callee loops", s.c.PodURL(), "web-cp", "/loop"},
		{"across nodes, callee sleeps 8 s", s.c.Workers()[0].PodURL(), "b", "/sleep?8000"},
	} {
		callerBefore, sleeperBefore := s.restarts(c.caller), s.restarts("sleeper")
		start := time.Now()
		out, err := testpods.Relay(c.podURL, "default/"+c.caller, "call GET http://sleeper"+c.path+" 2000 64\n")
		took := time.Since(start)
		if err != nil {
			rows = append(rows, row{fault, c.what, fmt.Sprintf("%s, the caller answered: %v", took.Round(time.Millisecond), err)})
			continue
		}
		_, next, _ := s.podGet("sleeper", "/") // waits for the sleeper's next instance, if any
		rows = append(rows, row{fault, c.what + ": elapsed, result, restarts of caller/callee, callee's next answer",
			fmt.Sprintf("%s, %s, %d/%d, %s", took.Round(time.Millisecond), callRC(out),
				s.restarts(c.caller)-callerBefore, s.restarts("sleeper")-sleeperBefore, next)})
	}
	return rows
}

// startSleeper builds the sleeper pod into the image tree and runs it on
// the control plane behind the Service sleeper.
func (s *server) startSleeper() error {
	if err := buildCPod(s.images, "sleeper", "sleeper.c"); err != nil {
		return err
	}
	for _, o := range []manifest.Object{benchPod("sleeper", "sleeper", host.ControlPlaneName), service("sleeper", 7000)} {
		if err := s.c.ApplyObject(o.Obj); err != nil {
			return err
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if status, _, _ := s.podGet("sleeper", "/"); status == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the sleeper pod did not answer within a minute")
		}
	}
}

// restarts is the restart count of the pod name on whichever node of the
// process runs it.
func (s *server) restarts(name string) int32 {
	if p, ok := s.c.Pod("default", name); ok {
		return p.Status().RestartCount
	}
	for _, w := range s.c.Workers() {
		if p, ok := w.Pod("default", name); ok {
			return p.Status().RestartCount
		}
	}
	return -1
}

package service

//lint:file-ignore SA1019 kube32 serves core/v1 Endpoints, as the boards do (docs/kubectl.md), deprecated upstream since v1.33

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func envString(env []corev1.EnvVar) string {
	var lines []string
	for _, e := range env {
		lines = append(lines, e.Name+"="+e.Value)
	}
	return strings.Join(lines, "\n")
}

func TestEnvVars(t *testing.T) {
	echo := svc("echo", "echo", port("http", 80, intstr.FromInt32(7000)))
	echoPod := runningPod("echo-1", "echo", "10.0.0.9", true)
	starting := withPhase(runningPod("client", "client", "", false), corev1.PodPending)
	noLinks := withPhase(runningPod("client", "client", "", false), corev1.PodPending)
	off := false
	noLinks.Spec.EnableServiceLinks = &off

	for _, tt := range []struct {
		rule     string
		pod      *corev1.Pod
		services []*corev1.Service
		pods     []*corev1.Pod // the namespace's pods, for the Endpoints
		want     string
	}{
		{
			rule:     "the host is the first ready address in the Service's Endpoints; the port is the resolved target port (docs/kubectl.md)",
			pod:      starting,
			services: []*corev1.Service{echo},
			pods:     []*corev1.Pod{echoPod},
			want: `ECHO_SERVICE_HOST=10.0.0.9
ECHO_SERVICE_PORT=7000
ECHO_SERVICE_PORT_HTTP=7000
ECHO_PORT=tcp://10.0.0.9:7000
ECHO_PORT_80_TCP=tcp://10.0.0.9:7000
ECHO_PORT_80_TCP_PROTO=tcp
ECHO_PORT_80_TCP_PORT=7000
ECHO_PORT_80_TCP_ADDR=10.0.0.9`,
		},
		{
			rule:     "the local node IP when the Service selects the starting pod itself",
			pod:      withPhase(runningPod("echo-2", "echo", "", false, cport("http", 7000)), corev1.PodPending),
			services: []*corev1.Service{svc("echo", "echo", port("http", 80, intstr.FromString("http")))},
			want: `ECHO_SERVICE_HOST=127.0.0.1
ECHO_SERVICE_PORT=7000
ECHO_SERVICE_PORT_HTTP=7000
ECHO_PORT=tcp://127.0.0.1:7000
ECHO_PORT_80_TCP=tcp://127.0.0.1:7000
ECHO_PORT_80_TCP_PROTO=tcp
ECHO_PORT_80_TCP_PORT=7000
ECHO_PORT_80_TCP_ADDR=127.0.0.1`,
		},
		{
			rule: "names follow kubelet's conversion (- to _, uppercase); several ports; named target ports; <SVC>_SERVICE_PORT is the first port",
			pod:  starting,
			services: []*corev1.Service{svc("my-api", "api",
				port("web-port", 80, intstr.FromString("web")), port("", 9090, intstr.FromInt32(9091)))},
			pods: []*corev1.Pod{runningPod("api-1", "api", "10.0.0.5", true, cport("web", 8080))},
			want: `MY_API_SERVICE_HOST=10.0.0.5
MY_API_SERVICE_PORT=8080
MY_API_SERVICE_PORT_WEB_PORT=8080
MY_API_PORT=tcp://10.0.0.5:8080
MY_API_PORT_80_TCP=tcp://10.0.0.5:8080
MY_API_PORT_80_TCP_PROTO=tcp
MY_API_PORT_80_TCP_PORT=8080
MY_API_PORT_80_TCP_ADDR=10.0.0.5
MY_API_PORT_9090_TCP=tcp://10.0.0.5:9091
MY_API_PORT_9090_TCP_PROTO=tcp
MY_API_PORT_9090_TCP_PORT=9091
MY_API_PORT_9090_TCP_ADDR=10.0.0.5`,
		},
		{
			rule:     "unready pods are not a host (only ready addresses are): no variables",
			pod:      starting,
			services: []*corev1.Service{echo},
			pods:     []*corev1.Pod{runningPod("echo-1", "echo", "10.0.0.9", false)},
			want:     "",
		},
		{
			rule:     "terminating pods are not a host: no variables",
			pod:      starting,
			services: []*corev1.Service{echo},
			pods:     []*corev1.Pod{terminating(runningPod("echo-1", "echo", "10.0.0.9", true))},
			want:     "",
		},
		{
			rule:     "the first ready address wins over an unready one",
			pod:      starting,
			services: []*corev1.Service{svc("echo", "echo", port("", 80, intstr.FromInt32(7000)))},
			pods:     []*corev1.Pod{runningPod("echo-0", "echo", "10.0.0.1", false), runningPod("echo-1", "echo", "10.0.0.9", true)},
			want: `ECHO_SERVICE_HOST=10.0.0.9
ECHO_SERVICE_PORT=7000
ECHO_PORT=tcp://10.0.0.9:7000
ECHO_PORT_80_TCP=tcp://10.0.0.9:7000
ECHO_PORT_80_TCP_PROTO=tcp
ECHO_PORT_80_TCP_PORT=7000
ECHO_PORT_80_TCP_ADDR=10.0.0.9`,
		},
		{
			rule:     "unless the pod spec sets enableServiceLinks: false",
			pod:      noLinks,
			services: []*corev1.Service{echo},
			pods:     []*corev1.Pod{echoPod},
			want:     "",
		},
		{
			rule:     "unless the Service sets clusterIP: None (headless)",
			pod:      starting,
			services: []*corev1.Service{headless(svc("echo", "echo", port("http", 80, intstr.FromInt32(7000))))},
			pods:     []*corev1.Pod{echoPod},
			want:     "",
		},
		{
			rule:     "unless the Service is type: ExternalName",
			pod:      starting,
			services: []*corev1.Service{externalName(svc("echo", "echo", port("http", 80, intstr.FromInt32(7000))))},
			pods:     []*corev1.Pod{echoPod},
			want:     "",
		},
		{
			rule:     "only Services that have a selector",
			pod:      starting,
			services: []*corev1.Service{svc("echo", "", port("http", 80, intstr.FromInt32(7000)))},
			pods:     []*corev1.Pod{echoPod},
			want:     "",
		},
		{
			rule: "only Services in the same namespace",
			pod:  starting,
			services: []*corev1.Service{func() *corev1.Service {
				s := svc("echo", "echo", port("http", 80, intstr.FromInt32(7000)))
				s.Namespace = "other"
				return s
			}()},
			pods: []*corev1.Pod{echoPod},
			want: "",
		},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			var eps []*corev1.Endpoints
			for _, s := range tt.services {
				if ep := endpoints(s, tt.pods); ep != nil {
					eps = append(eps, ep)
				}
			}
			got := envString(EnvVars(tt.pod, tt.services, eps, nodeIP))
			if got != tt.want {
				t.Errorf("EnvVars =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	// "Names follow kubelet's conversion (- → _, uppercase)"
	if got := envName("my-svc-2"); got != "MY_SVC_2" {
		t.Errorf("EnvName(my-svc-2) = %s", got)
	}
}

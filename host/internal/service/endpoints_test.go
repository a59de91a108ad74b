package service

//lint:file-ignore SA1019 kube32 serves core/v1 Endpoints, as the boards do (docs/kubectl.md), deprecated upstream since v1.33

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// summary prints Endpoints compactly: "ports: ready | notReady" per subset.
func summary(ep *corev1.Endpoints) string {
	if ep == nil {
		return "<nil>"
	}
	var subsets []string
	for _, ss := range ep.Subsets {
		var ports, ready, notReady []string
		for _, p := range ss.Ports {
			ports = append(ports, fmt.Sprintf("%s=%d", p.Name, p.Port))
		}
		for _, a := range ss.Addresses {
			ready = append(ready, a.IP+"/"+a.TargetRef.Name+"@"+*a.NodeName)
		}
		for _, a := range ss.NotReadyAddresses {
			notReady = append(notReady, a.IP+"/"+a.TargetRef.Name+"@"+*a.NodeName)
		}
		subsets = append(subsets, strings.Join(ports, ",")+": "+strings.Join(ready, ",")+" | "+strings.Join(notReady, ","))
	}
	return strings.Join(subsets, "; ")
}

func TestEndpoints(t *testing.T) {
	for _, tt := range []struct {
		rule string
		svc  *corev1.Service
		pods []*corev1.Pod
		want string
	}{
		{
			rule: "targetPort is a port number",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true)},
			want: "http=7000: 10.0.0.1/a@n1 | ",
		},
		{
			rule: "targetPort is the name of a containerPort from the pod spec",
			svc:  svc("web", "web", port("http", 80, intstr.FromString("web"))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true, cport("web", 7001))},
			want: "http=7001: 10.0.0.1/a@n1 | ",
		},
		{
			rule: "Omitting targetPort defaults it to port",
			svc:  svc("web", "web", port("http", 8080, intstr.IntOrString{})),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true)},
			want: "http=8080: 10.0.0.1/a@n1 | ",
		},
		{
			rule: "Endpoints groups addresses into subsets by resolved target ports",
			svc:  svc("web", "web", port("http", 80, intstr.FromString("web"))),
			pods: []*corev1.Pod{
				runningPod("a", "web", "10.0.0.1", true, cport("web", 7000)),
				runningPod("b", "web", "10.0.0.2", true, cport("web", 7001)),
				runningPod("c", "web", "10.0.0.3", true, cport("web", 7000)),
				runningPod("d", "web", "10.0.0.4", true, cport("other", 9)), // resolves no port: left out
			},
			want: "http=7000: 10.0.0.1/a@n1,10.0.0.3/c@n1 | ; http=7001: 10.0.0.2/b@n1 | ",
		},
		{
			rule: "several ports: each resolved target port is in the subset",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000)), port("admin", 81, intstr.FromString("admin"))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true, cport("admin", 7100))},
			want: "http=7000,admin=7100: 10.0.0.1/a@n1 | ",
		},
		{
			rule: "Pods with the Ready condition set to True appear in addresses, and other selected pods appear in notReadyAddresses",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true), runningPod("b", "web", "10.0.0.2", false)},
			want: "http=7000: 10.0.0.1/a@n1 | 10.0.0.2/b@n1",
		},
		{
			rule: "A Service selects Running, non-terminating pods in the same namespace whose labels match spec.selector",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
			pods: []*corev1.Pod{
				terminating(runningPod("leaving", "web", "10.0.0.1", true)),
				withPhase(runningPod("pending", "web", "10.0.0.2", false), corev1.PodPending),
				withPhase(runningPod("done", "web", "10.0.0.3", false), corev1.PodSucceeded),
				runningPod("other", "api", "10.0.0.4", true),
				func() *corev1.Pod {
					p := runningPod("elsewhere", "web", "10.0.0.5", true)
					p.Namespace = "other"
					return p
				}(),
				runningPod("a", "web", "10.0.0.6", true),
			},
			want: "http=7000: 10.0.0.6/a@n1 | ",
		},
		{
			rule: "headless Services (clusterIP: None) have Endpoints too",
			svc:  headless(svc("web", "web", port("http", 80, intstr.FromInt32(7000)))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true)},
			want: "http=7000: 10.0.0.1/a@n1 | ",
		},
		{
			rule: "ExternalName Services have no Endpoints",
			svc:  externalName(svc("web", "web", port("http", 80, intstr.FromInt32(7000)))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true)},
			want: "<nil>",
		},
		{
			rule: "Services without a selector have no computed Endpoints",
			svc:  svc("web", "", port("http", 80, intstr.FromInt32(7000))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true)},
			want: "<nil>",
		},
		{
			rule: "a Service selecting nothing has Endpoints without subsets",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
			want: "",
		},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			ep := endpoints(tt.svc, tt.pods)
			if got := summary(ep); got != tt.want {
				t.Errorf("Endpoints = %q\nwant         %q", got, tt.want)
			}
			if ep != nil {
				if ep.Name != tt.svc.Name || ep.Namespace != tt.svc.Namespace {
					t.Errorf("Endpoints named %s/%s, want the Service's", ep.Namespace, ep.Name)
				}
				if tt.svc.Spec.ClusterIP == "None" {
					if _, ok := ep.Labels[corev1.IsHeadlessService]; !ok {
						t.Errorf("headless Service's Endpoints lack the %s label", corev1.IsHeadlessService)
					}
				}
			}
		})
	}
}

// sliceSummary prints slices compactly: "ports: ip/name(ready,serving,terminating)".
func sliceSummary(slices []*discoveryv1.EndpointSlice) string {
	var out []string
	for _, s := range slices {
		var ports, eps []string
		for _, p := range s.Ports {
			ports = append(ports, fmt.Sprintf("%s=%d", *p.Name, *p.Port))
		}
		for _, e := range s.Endpoints {
			c := e.Conditions
			eps = append(eps, fmt.Sprintf("%s/%s(%v,%v,%v)", e.Addresses[0], e.TargetRef.Name, *c.Ready, *c.Serving, *c.Terminating))
		}
		out = append(out, strings.Join(ports, ",")+": "+strings.Join(eps, ","))
	}
	return strings.Join(out, "; ")
}

func TestEndpointSlices(t *testing.T) {
	for _, tt := range []struct {
		rule string
		svc  *corev1.Service
		pods []*corev1.Pod
		want string
	}{
		{
			rule: "conditions: a Ready pod is ready and serving, not terminating",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true)},
			want: "http=7000: 10.0.0.1/a(true,true,false)",
		},
		{
			rule: "conditions: an unready pod is neither ready nor serving",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", false)},
			want: "http=7000: 10.0.0.1/a(false,false,false)",
		},
		{
			rule: "conditions: a terminating Ready pod is serving and terminating, not ready (as the upstream controller sets them)",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
			pods: []*corev1.Pod{terminating(runningPod("a", "web", "10.0.0.1", true))},
			want: "http=7000: 10.0.0.1/a(false,true,true)",
		},
		{
			rule: "named target ports: one slice per set of resolved ports",
			svc:  svc("web", "web", port("http", 80, intstr.FromString("web"))),
			pods: []*corev1.Pod{
				runningPod("a", "web", "10.0.0.1", true, cport("web", 7000)),
				runningPod("b", "web", "10.0.0.2", true, cport("web", 7001)),
			},
			want: "http=7000: 10.0.0.1/a(true,true,false); http=7001: 10.0.0.2/b(true,true,false)",
		},
		{
			rule: "a Service selecting nothing has one empty slice",
			svc:  svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
			want: ": ",
		},
		{
			rule: "ExternalName Services have no EndpointSlices",
			svc: func() *corev1.Service {
				s := svc("web", "web", port("http", 80, intstr.FromInt32(7000)))
				s.Spec.Type = corev1.ServiceTypeExternalName
				return s
			}(),
			pods: []*corev1.Pod{runningPod("a", "web", "10.0.0.1", true)},
			want: "",
		},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			slices := endpointSlices(tt.svc, tt.pods)
			if got := sliceSummary(slices); got != tt.want {
				t.Errorf("EndpointSlices = %q\nwant              %q", got, tt.want)
			}
			for _, s := range slices {
				// "EndpointSlice sets addressType: IPv4, labels each slice with
				// kubernetes.io/service-name, sets ownerReferences to the Service"
				if s.AddressType != discoveryv1.AddressTypeIPv4 {
					t.Errorf("addressType %q", s.AddressType)
				}
				if s.Labels[discoveryv1.LabelServiceName] != tt.svc.Name {
					t.Errorf("labels %v lack kubernetes.io/service-name=%s", s.Labels, tt.svc.Name)
				}
				if refs := s.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Service" || refs[0].Name != tt.svc.Name ||
					refs[0].UID != tt.svc.UID || refs[0].Controller == nil || !*refs[0].Controller {
					t.Errorf("ownerReferences %+v, want the Service as controller", refs)
				}
				if !strings.HasPrefix(s.Name, tt.svc.Name+"-") {
					t.Errorf("slice name %q", s.Name)
				}
			}
			if again := endpointSlices(tt.svc, tt.pods); len(again) > 0 && again[0].Name != slices[0].Name {
				t.Errorf("slice names change between reads: %s, %s", slices[0].Name, again[0].Name)
			}
		})
	}
}

func TestResolveTargetPort(t *testing.T) {
	p := runningPod("a", "web", "10.0.0.1", true, cport("http", 7000))
	for _, tt := range []struct {
		rule   string
		target intstr.IntOrString
		want   int32
		ok     bool
	}{
		{"a number is the port", intstr.FromInt32(9000), 9000, true},
		{"a name is a containerPort's name", intstr.FromString("http"), 7000, true},
		{"an unknown name resolves nothing", intstr.FromString("nope"), 0, false},
		{"unset defaults to port", intstr.IntOrString{}, 80, true},
	} {
		got, ok := resolveTargetPort(corev1.ServicePort{Port: 80, TargetPort: tt.target}, p)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: got %d %v, want %d %v", tt.rule, got, ok, tt.want, tt.ok)
		}
	}
}

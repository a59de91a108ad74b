package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// An admission rule: an object that breaks it, and the field the API's 422
// names.
type admissionRule struct {
	name     string // the rule, as a test name
	manifest string // one YAML document
	field    string // the field path of the 422's cause
}

// The heads of the objects the rules break; each names its object x.
const (
	netpolHead  = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: x}\nspec:\n  podSelector: {}\n"
	podHead     = "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n"
	serviceHead = "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec:\n  selector: {app: x}\n"
	ingressHead = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: x}\nspec:\n"
	container   = "  containers: [{name: c, image: 'wasm://embedded/echo'}]\n"
)

// pod is a Pod whose one container is c (YAML flow mapping fields).
func pod(c string) string {
	return podHead + "  containers: [{name: c, image: 'wasm://embedded/echo', " + c + "}]\n"
}

var admissionRules = []admissionRule{
	// Every object's metadata.
	{"NameIsDNSSubdomain", "apiVersion: v1\nkind: Pod\nmetadata: {name: Web}\nspec:\n" + container, "metadata.name"},
	{"NamespaceNameIsDNSLabel", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a.b}\n", "metadata.name"},
	{"ServiceNameIsDNS1035Label", "apiVersion: v1\nkind: Service\nmetadata: {name: 1web}\nspec: {ports: [{port: 80}]}\n", "metadata.name"},
	{"LabelKeyIsQualifiedName", "apiVersion: v1\nkind: Pod\nmetadata: {name: x, labels: {'a b': c}}\nspec:\n" + container, "metadata.labels"},
	{"LabelValueIsValid", "apiVersion: v1\nkind: Pod\nmetadata: {name: x, labels: {a: '-c-'}}\nspec:\n" + container, "metadata.labels"},
	{"AnnotationKeyIsQualifiedName", "apiVersion: v1\nkind: Pod\nmetadata: {name: x, annotations: {'a b': c}}\nspec:\n" + container, "metadata.annotations"},
	{"StaticBundleNameIsAnImageName", "apiVersion: kube32.io/v1\nkind: StaticBundle\nmetadata: {name: " + strings.Repeat("a", 64) + "}\n", "metadata.name"},
	{"StaticBundleImageIsAnOCIReference", "apiVersion: kube32.io/v1\nkind: StaticBundle\nmetadata: {name: site}\nspec: {image: 'wasm://embedded/site'}\n", "spec.image"},
	{"StaticBundleImageIsAnOCIReferenceNotAName", "apiVersion: kube32.io/v1\nkind: StaticBundle\nmetadata: {name: site}\nspec: {image: 'Not A Reference'}\n", "spec.image"},

	// NetworkPolicy.
	{"NetworkPolicyEndPortAtMost65535", netpolHead + "  egress: [{ports: [{port: 80, endPort: 65537}]}]\n", "spec.egress[0].ports[0].endPort"},
	{"NetworkPolicyEndPortNotBelowPort", netpolHead + "  ingress: [{ports: [{port: 80, endPort: 79}]}]\n", "spec.ingress[0].ports[0].endPort"},
	{"NetworkPolicyEndPortNeedsANumericPort", netpolHead + "  ingress: [{ports: [{port: http, endPort: 90}]}]\n", "spec.ingress[0].ports[0].endPort"},
	{"NetworkPolicyEndPortNeedsAPort", netpolHead + "  ingress: [{ports: [{endPort: 90}]}]\n", "spec.ingress[0].ports[0].port"},
	{"NetworkPolicyPortAtMost65535", netpolHead + "  ingress: [{ports: [{port: 65536}]}]\n", "spec.ingress[0].ports[0].port"},
	{"NetworkPolicyPortNameIsAPortName", netpolHead + "  ingress: [{ports: [{port: 'no_such'}]}]\n", "spec.ingress[0].ports[0].port"},
	{"NetworkPolicyProtocolIsTCPUDPOrSCTP", netpolHead + "  ingress: [{ports: [{port: 80, protocol: ICMP}]}]\n", "spec.ingress[0].ports[0].protocol"},
	{"NetworkPolicyAtMostTwoPolicyTypes", netpolHead + "  policyTypes: [Ingress, Egress, Ingress]\n", "spec.policyTypes"},
	{"NetworkPolicyPolicyTypeIsIngressOrEgress", netpolHead + "  policyTypes: [Sideways]\n", "spec.policyTypes[0]"},
	{"NetworkPolicyPodSelectorIsValid", "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: x}\nspec:\n  podSelector: {matchLabels: {'a b': c}}\n", "spec.podSelector.matchLabels"},
	{"NetworkPolicyPeerIsSpecified", netpolHead + "  ingress: [{from: [{}]}]\n", "spec.ingress[0].from[0]"},
	{"NetworkPolicyIPBlockIsTheOnlyPeer", netpolHead + "  ingress: [{from: [{ipBlock: {cidr: 10.0.0.0/8}, podSelector: {}}]}]\n", "spec.ingress[0].from[0]"},
	{"NetworkPolicyIPBlockCIDRIsACIDR", netpolHead + "  egress: [{to: [{ipBlock: {cidr: not-a-cidr}}]}]\n", "spec.egress[0].to[0].ipBlock.cidr"},
	{"NetworkPolicyIPBlockCIDRIsRequired", netpolHead + "  egress: [{to: [{ipBlock: {cidr: ''}}]}]\n", "spec.egress[0].to[0].ipBlock.cidr"},
	{"NetworkPolicyIPBlockExceptIsInsideCIDR", netpolHead + "  egress: [{to: [{ipBlock: {cidr: 10.0.0.0/8, except: [192.168.0.0/16]}}]}]\n", "spec.egress[0].to[0].ipBlock.except[0]"},

	// Service.
	{"ServicePortAtLeast1", serviceHead + "  ports: [{port: 0}]\n", "spec.ports[0].port"},
	{"ServicePortsAreRequired", serviceHead + "  ports: []\n", "spec.ports"},
	{"ServicePortsAreNamedWhenSeveral", serviceHead + "  ports: [{port: 80}, {port: 81}]\n", "spec.ports[0].name"},
	{"ServicePortNamesAreUnique", serviceHead + "  ports: [{name: web, port: 80}, {name: web, port: 81}]\n", "spec.ports[1].name"},
	{"ServicePortNameIsDNSLabel", serviceHead + "  ports: [{name: Web, port: 80}]\n", "spec.ports[0].name"},
	{"ServicePortAndProtocolAreUnique", serviceHead + "  ports: [{name: a, port: 80}, {name: b, port: 80}]\n", "spec.ports[1]"},
	{"ServiceTargetPortAtMost65535", serviceHead + "  ports: [{port: 80, targetPort: 65536}]\n", "spec.ports[0].targetPort"},
	{"ServiceTargetPortNameIsAPortName", serviceHead + "  ports: [{port: 80, targetPort: 'no_such'}]\n", "spec.ports[0].targetPort"},
	{"ServiceProtocolIsTCPUDPOrSCTP", serviceHead + "  ports: [{port: 80, protocol: ICMP}]\n", "spec.ports[0].protocol"},
	{"ServiceTypeIsSupported", serviceHead + "  type: Magic\n  ports: [{port: 80}]\n", "spec.type"},
	{"ServiceSelectorIsValid", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec:\n  selector: {'a b': c}\n  ports: [{port: 80}]\n", "spec.selector"},

	// Pod.
	{"PodHasContainers", podHead + "  containers: []\n", "spec.containers"},
	{"PodImageIsWasmEmbeddedOrSD", podHead + "  containers: [{name: c, image: 'nginx:1.27'}]\n", "spec.containers[0].image"},
	{"PodImageNameIsOnePathElement", podHead + "  containers: [{name: c, image: 'wasm://embedded/../../etc/x'}]\n", "spec.containers[0].image"},
	{"PodImageNameIsAnImageName", podHead + "  containers: [{name: c, image: 'wasm://sd/A_b'}]\n", "spec.containers[0].image"},
	{"PodImageIsRequired", podHead + "  containers: [{name: c}]\n", "spec.containers[0].image"},
	{"ContainerNameIsDNSLabel", podHead + "  containers: [{name: C, image: 'wasm://embedded/echo'}]\n", "spec.containers[0].name"},
	{"ContainerNamesAreUnique", podHead + "  containers: [{name: c, image: 'wasm://embedded/echo'}, {name: c, image: 'wasm://embedded/echo'}]\n", "spec.containers[1].name"},
	{"ContainerPortAtMost65535", pod("ports: [{containerPort: 65536}]"), "spec.containers[0].ports[0].containerPort"},
	{"ContainerPortIsRequired", pod("ports: [{name: web}]"), "spec.containers[0].ports[0].containerPort"},
	{"ContainerPortNamesAreUnique", pod("ports: [{name: web, containerPort: 80}, {name: web, containerPort: 81}]"), "spec.containers[0].ports[1].name"},
	{"ContainerPortProtocolIsTCPUDPOrSCTP", pod("ports: [{containerPort: 80, protocol: ICMP}]"), "spec.containers[0].ports[0].protocol"},
	{"EnvNameIsValid", pod("env: [{name: 'A=B', value: x}]"), "spec.containers[0].env[0].name"},
	{"EnvFieldRefPathIsSupported", pod("env: [{name: A, valueFrom: {fieldRef: {fieldPath: status.phase}}}]"), "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath"},
	{"EnvFieldRefPathIsRequired", pod("env: [{name: A, valueFrom: {fieldRef: {apiVersion: v1}}}]"), "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath"},
	{"EnvFieldRefAPIVersionIsV1", pod("env: [{name: A, valueFrom: {fieldRef: {apiVersion: v2, fieldPath: metadata.name}}}]"), "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath"},
	{"EnvFieldRefSubscriptIsOfLabelsOrAnnotations", pod("env: [{name: A, valueFrom: {fieldRef: {fieldPath: \"spec.nodeName['x']\"}}}]"), "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath"},
	{"EnvFieldRefLabelKeyIsQualifiedName", pod("env: [{name: A, valueFrom: {fieldRef: {fieldPath: \"metadata.labels['a b']\"}}}]"), "spec.containers[0].env[0].valueFrom.fieldRef"},
	{"EnvResourceFieldRefIsMemory", pod("env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}]"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.resource"},
	{"EnvResourceFieldRefResourceIsRequired", pod("env: [{name: A, valueFrom: {resourceFieldRef: {divisor: 1Mi}}}]"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.resource"},
	{"EnvResourceFieldRefDivisorIsSupported", pod("env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 3Ki}}}]"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor"},
	{"EnvResourceFieldRefContainerIsInThePod", pod("env: [{name: A, valueFrom: {resourceFieldRef: {containerName: other, resource: limits.memory}}}]"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.containerName"},
	{"EnvConfigMapKeyRefIsRefused", pod("env: [{name: A, valueFrom: {configMapKeyRef: {name: cm, key: k}}}]"), "spec.containers[0].env[0].valueFrom.configMapKeyRef"},
	{"EnvSecretKeyRefIsRefused", pod("env: [{name: A, valueFrom: {secretKeyRef: {name: s, key: k}}}]"), "spec.containers[0].env[0].valueFrom.secretKeyRef"},
	{"EnvValueFromHasASource", pod("env: [{name: A, valueFrom: {}}]"), "spec.containers[0].env[0].valueFrom"},
	{"EnvValueFromHasOneSource", pod("env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}, resourceFieldRef: {resource: limits.memory}}}]"), "spec.containers[0].env[0].valueFrom"},
	{"EnvValueFromWithoutValue", pod("env: [{name: A, value: x, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]"), "spec.containers[0].env[0].valueFrom"},
	{"MemoryLimitAtLeast64Ki", pod("resources: {limits: {memory: 32Ki}}"), "spec.containers[0].resources.limits[memory]"},
	{"MemoryRequestAtMostLimit", pod("resources: {limits: {memory: 128Ki}, requests: {memory: 256Ki}}"), "spec.containers[0].resources.requests"},
	{"RestartPolicyIsSupported", podHead + container + "  restartPolicy: Sometimes\n", "spec.restartPolicy"},
	{"NodeSelectorIsValid", podHead + container + "  nodeSelector: {'a b': c}\n", "spec.nodeSelector"},

	// Ingress (the other rules: host/apis/manifest's TestIngressValidation).
	{"IngressPathTypeIsRequired", ingressHead + "  rules: [{http: {paths: [{path: /, backend: {service: {name: web, port: {number: 80}}}}]}}]\n", "spec.rules[0].http.paths[0].pathType"},
	{"IngressBackendPortIsAPortNumber", ingressHead + "  defaultBackend: {service: {name: web, port: {number: 65536}}}\n", "spec.defaultBackend.service.port.number"},
}

// Issue 19, item 4: the objects kube-apiserver refuses that kube32 once
// admitted: the rest of a Pod's, a Service's and an Ingress's fields, as
// kube-apiserver checks them (host/internal/admission/podspec.go, affinity.go,
// servicenet.go, ingress.go).
var kubeAPIServerRules = []admissionRule{
	{"PodActiveDeadlineSecondsAtLeast1", podHead + container + "  activeDeadlineSeconds: 0\n", "spec.activeDeadlineSeconds"},
	{"PodHostnameIsDNSLabel", podHead + container + "  hostname: Web\n", "spec.hostname"},
	{"PodDNSPolicyIsSupported", podHead + container + "  dnsPolicy: Sometimes\n", "spec.dnsPolicy"},
	{"ContainerImagePullPolicyIsSupported", pod("imagePullPolicy: Sometimes"), "spec.containers[0].imagePullPolicy"},
	{"VolumeMountNamesAVolume", pod("volumeMounts: [{name: data, mountPath: /data}]"), "spec.containers[0].volumeMounts[0].name"},
	{"ProbeHasAHandler", pod("livenessProbe: {periodSeconds: 5}"), "spec.containers[0].livenessProbe"},
	{"TolerationOperatorIsSupported", podHead + container + "  tolerations: [{key: k, operator: Above}]\n", "spec.tolerations[0].operator"},
	{"InitContainerNameIsNotAContainerName", podHead + container + "  initContainers: [{name: c, image: 'wasm://embedded/echo'}]\n", "spec.initContainers[0].name"},
	{"NodeNameIsDNSSubdomain", podHead + container + "  nodeName: Node_1\n", "spec.nodeName"},
	{"PriorityClassNameIsDNSSubdomain", podHead + container + "  priorityClassName: High_Priority\n", "spec.priorityClassName"},
	{"ContainerTerminationMessagePolicyIsSupported", pod("terminationMessagePolicy: Never"), "spec.containers[0].terminationMessagePolicy"},
	{"ServiceAccountNameIsDNSSubdomain", podHead + container + "  serviceAccountName: Bad_Name\n", "spec.serviceAccountName"},
	{"NodeAffinityOperatorIsSupported", podHead + container + "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: disk, operator: Near, values: [ssd]}]}]}}}\n",
		"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator"},
	{"ReadinessGateConditionTypeIsQualifiedName", podHead + container + "  readinessGates: [{conditionType: 'a b'}]\n", "spec.readinessGates[0].conditionType"},
	{"ServiceClusterIPIsAnIP", serviceHead + "  clusterIP: not-an-ip\n  ports: [{port: 80}]\n", "spec.clusterIPs[0]"},
	{"ExternalNameServiceHasAName", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec:\n  type: ExternalName\n", "spec.externalName"},
	{"NodePortIsForbiddenOnClusterIP", serviceHead + "  ports: [{port: 80, nodePort: 30080}]\n", "spec.ports[0].nodePort"},
	{"ExternalTrafficPolicyNeedsAnExternalService", serviceHead + "  externalTrafficPolicy: Local\n  ports: [{port: 80}]\n", "spec.externalTrafficPolicy"},
	{"IPFamilyPolicyIsSupported", serviceHead + "  ipFamilyPolicy: TripleStack\n  ports: [{port: 80}]\n", "spec.ipFamilyPolicy"},
	{"LoadBalancerSourceRangesAreCIDRs", serviceHead + "  type: LoadBalancer\n  loadBalancerSourceRanges: [not-a-cidr]\n  ports: [{port: 80}]\n", "spec.LoadBalancerSourceRanges[0]"},
	{"ExternalIPsAreIPs", serviceHead + "  externalIPs: [not-an-ip]\n  ports: [{port: 80}]\n", "spec.externalIPs[0]"},
	{"IngressTLSHostIsDNSName", ingressHead + "  defaultBackend: {service: {name: web, port: {number: 80}}}\n  tls: [{hosts: ['a b']}]\n", "spec.tls[0].hosts[0]"},
}

// Each rule is enforced alike by the API (a 422 naming the field, the store
// unchanged) and by `kube32 serve -f` (refusing to start, naming the file,
// the object and the same field with the same message).
func TestAdmissionRules(t *testing.T) {
	api := newAPI(t)
	for _, rule := range append(admissionRules, kubeAPIServerRules...) {
		t.Run(rule.name, func(t *testing.T) {
			cause := api.createInvalid(t, rule.manifest, rule.field)
			if t.Failed() {
				return
			}
			serveRefuses(t, rule.manifest, cause.Field+": "+cause.Message)
		})
	}
}

// api is an API server over its own store, on a loopback port.
type api struct {
	url   string
	store *host.API
}

func newAPI(t *testing.T) *api {
	s := host.NewAPI("")
	if err := s.ApplyObject(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &api{url: srv.URL, store: s}
}

// collections are the URLs objects of each kind are created at.
var collections = map[string]string{
	"Namespace":     "/api/v1/namespaces",
	"Pod":           "/api/v1/namespaces/default/pods",
	"Service":       "/api/v1/namespaces/default/services",
	"Ingress":       "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
	"NetworkPolicy": "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies",
	"StaticBundle":  "/apis/kube32.io/v1/namespaces/default/staticbundles",
}

// createInvalid POSTs manifest and checks that the API answers 422 with a
// cause naming field, and that the store is unchanged; it returns the cause.
func (a *api) createInvalid(t *testing.T, manifest, field string) metav1.StatusCause {
	t.Helper()
	var head struct{ Kind string }
	if err := json.Unmarshal(mustJSON(t, manifest), &head); err != nil || collections[head.Kind] == "" {
		t.Fatalf("manifest of no known kind (%v):\n%s", err, manifest)
	}
	before := a.store.Version()
	code, body := send(t, "POST", a.url+collections[head.Kind], "application/yaml", manifest)
	if after := a.store.Version(); after != before {
		t.Errorf("the store changed (version %d -> %d) on a rejected write", before, after)
	}
	var st metav1.Status
	if code != 422 || json.Unmarshal([]byte(body), &st) != nil || st.Reason != metav1.StatusReasonInvalid || st.Details == nil {
		t.Fatalf("POST %s = %d %s, want a 422 Invalid Status", head.Kind, code, body)
	}
	for _, c := range st.Details.Causes {
		if c.Field == field {
			return c
		}
	}
	t.Fatalf("the 422's causes %+v name no %s", st.Details.Causes, field)
	return metav1.StatusCause{}
}

// serveRefuses runs `kube32 serve -f` with manifest in a file and checks
// that it fails before starting, naming the file, the document, the object
// and want, the field and message the API's 422 gave.
func serveRefuses(t *testing.T, manifest, want string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir) // no project: serve would run the demo
	file := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	err := testserve.Try(t, "-f", file)
	if err == nil {
		t.Fatal("serve -f started with the manifest")
	}
	var head struct {
		Kind     string
		Metadata struct{ Name string }
	}
	json.Unmarshal(mustJSON(t, manifest), &head)
	who := head.Kind + " default/" + head.Metadata.Name
	if head.Kind == "Namespace" {
		who = head.Kind + " " + head.Metadata.Name
	}
	prefix := file + ": document 1 (" + who + "): "
	if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, want) {
		t.Errorf("serve -f said:\n%s\nwant %q and %q", msg, prefix, want)
	}
}

func mustJSON(t *testing.T, manifest string) []byte {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func send(t *testing.T, method, url, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A project whose manifests hold an invalid object does not start either:
// the error names the manifest as kube32.yaml lists it.
func TestServeRefusesAProjectWithAnInvalidManifest(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "examples", "echo"))); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "echo.yaml")
	good, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	bad := netpolHead + "  policyTypes: [Sideways]\n"
	if err := os.WriteFile(manifest, append(good, "---\n"+bad...), 0o644); err != nil {
		t.Fatal(err)
	}
	err = testserve.Try(t, dir)
	want := `echo.yaml: document 4 (NetworkPolicy default/x): spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Egress", "Ingress"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("serve = %v, want an error with %q", err, want)
	}
}

// `kube32 serve -f` with an invalid object exits non-zero with the error
// on stderr.
func TestServeWithAnInvalidManifestExitsNonZero(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	file := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(file, []byte(netpolHead+"  egress: [{ports: [{port: 80, endPort: 65537}]}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := testserve.Try(t, "-f", file); err == nil {
		t.Fatal("serve -f started") // checked first: the command below would serve until killed
	}
	var stdout, stderr testserve.Output
	code := cli.Run(context.Background(), []string{"serve", "-f", file, "--kubeconfig", filepath.Join(dir, "kubeconfig")},
		cli.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr})
	want := "kube32: " + file + ": document 1 (NetworkPolicy default/x): spec.egress[0].ports[0].endPort: Invalid value: 65537: must be between 1 and 65535, inclusive"
	if code == 0 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit code %d, stderr:\n%s\nwant non-zero and %q", code, stderr.String(), want)
	}
}

// Issue 19, item 4: real kubectl gets kube-apiserver's answer for each
// object kube-apiserver refuses: the 422's field path and message.
func TestKubectlApplyRefusesWhatKubeAPIServerRefuses(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	api := newAPI(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "kubeconfig")
	if err := host.WriteKubeconfig(config, host.KubeconfigEntry{Server: api.url}); err != nil {
		t.Fatal(err)
	}
	for _, rule := range kubeAPIServerRules {
		t.Run(rule.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(file, []byte(rule.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			before := api.store.Version()
			cmd := exec.Command(kubectl, "--context", "kube32", "--cache-dir", filepath.Join(dir, "cache"), "apply", "-f", file)
			cmd.Env = append(os.Environ(), "KUBECONFIG="+config)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "is invalid: ") || !strings.Contains(string(out), rule.field+": ") {
				t.Errorf("kubectl apply: %v\n%s\nwant a 422 naming %s", err, out, rule.field)
			}
			if api.store.Version() != before {
				t.Error("the store changed")
			}
		})
	}
}

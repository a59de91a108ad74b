package k8sdeploy_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/k8sdeploy"
)

const pod = `apiVersion: v1
kind: Pod
metadata:
  name: api
  labels: {app: api}
  annotations: {kube32.io/replicas: "3", note: kept}
spec:
  containers:
  - name: api
    image: wasm://embedded/api
    env:
    - {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
    resources: {limits: {memory: 64Ki}}
    securityContext: {capabilities: {add: [SERVICE_CALL]}}
`

var built = k8sdeploy.Options{App: "shop", Images: map[string]string{"wasm://embedded/api": "127.0.0.1:5000/shop/api@sha256:" + strings.Repeat("a", 64)},
	Bundles: map[string]string{"site": "127.0.0.1:5000/shop/site@sha256:" + strings.Repeat("b", 64)}}

func objects(t *testing.T, manifests string, opts k8sdeploy.Options) ([]string, error) {
	t.Helper()
	objs, err := manifest.Decode("app.yaml", []byte(manifests))
	if err != nil {
		t.Fatal(err)
	}
	out, err := k8sdeploy.Objects(objs, opts)
	if err != nil {
		return nil, err
	}
	b, err := k8sdeploy.YAML(out)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "---\n"), nil
}

// A Pod becomes a Deployment of runtime class kube32 (docs/kubernetes.md,
// "What deploy does"): its labels, annotations, env (Downward API
// included), resources and capabilities kept, its image the pushed
// reference, replicas from its annotation, selected by the app's and the
// pod's labels, which its pods carry.
func TestAPodBecomesADeploymentOfRuntimeClassKube32(t *testing.T) {
	docs, err := objects(t, pod, built)
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &d); err != nil {
		t.Fatalf("%v\n%s", err, docs[0])
	}
	spec := d.Spec.Template.Spec
	c := spec.Containers[0]
	switch {
	case d.Kind != "Deployment" || d.APIVersion != "apps/v1" || d.Name != "api" || d.Namespace != "default":
		t.Errorf("object %s %s %s/%s", d.APIVersion, d.Kind, d.Namespace, d.Name)
	case *d.Spec.Replicas != 3:
		t.Errorf("replicas %d, want the annotation's 3", *d.Spec.Replicas)
	case spec.RuntimeClassName == nil || *spec.RuntimeClassName != abi.RuntimeClassName:
		t.Errorf("runtimeClassName %v", spec.RuntimeClassName)
	case c.Image != built.Images["wasm://embedded/api"]:
		t.Errorf("image %s", c.Image)
	case c.Env[0].ValueFrom.FieldRef.FieldPath != "spec.nodeName" || c.Resources.Limits.Memory().String() != "64Ki" || c.SecurityContext.Capabilities.Add[0] != "SERVICE_CALL":
		t.Errorf("container %+v", c)
	case d.Spec.Selector.MatchLabels[abi.LabelDeployApp] != "shop" || d.Spec.Selector.MatchLabels[abi.LabelDeployPod] != "api" || len(d.Spec.Selector.MatchLabels) != 2:
		t.Errorf("selector %v", d.Spec.Selector)
	case d.Spec.Template.Labels["app"] != "api" || d.Spec.Template.Labels[abi.LabelDeployPod] != "api" || d.Labels[abi.LabelDeployApp] != "shop":
		t.Errorf("labels %v, template's %v", d.Labels, d.Spec.Template.Labels)
	case d.Spec.Template.Annotations["note"] != "kept" || d.Spec.Template.Annotations[abi.AnnotationReplicas] != "":
		t.Errorf("template annotations %v: want note kept, the replicas annotation gone", d.Spec.Template.Annotations)
	case strings.Contains(docs[0], "status") || strings.Contains(docs[0], "creationTimestamp"):
		t.Errorf("fields the cluster sets:\n%s", docs[0])
	}
	// Without the annotation, --replicas; --namespace moves everything.
	docs, err = objects(t, strings.Replace(pod, `kube32.io/replicas: "3", `, "", 1), k8sdeploy.Options{App: "shop", Namespace: "prod", Replicas: 2, Images: built.Images})
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(docs[0]), &d); err != nil || *d.Spec.Replicas != 2 || d.Namespace != "prod" {
		t.Errorf("replicas %d in %s (%v), want --replicas' 2 in prod", *d.Spec.Replicas, d.Namespace, err)
	}
}

// Services, NetworkPolicies and Ingresses go as they are, labelled, in an
// order that puts a policy before the pods it holds and an Ingress after
// its backends; an Ingress without a class gets kube32; a StaticBundle its
// pushed reference.
func TestOtherKindsGoAsTheyAre(t *testing.T) {
	docs, err := objects(t, `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: api, port: {number: 80}}}}]}}]
---
`+pod+`---
apiVersion: kube32.io/v1
kind: StaticBundle
metadata: {name: site}
---
apiVersion: v1
kind: Service
metadata: {name: api}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: 7000}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: closed}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Egress]
---
apiVersion: v1
kind: Namespace
metadata: {name: default}
`, built)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range docs {
		var u struct {
			Kind     string
			Metadata struct{ Labels map[string]string }
			Spec     map[string]any
		}
		if err := yaml.Unmarshal([]byte(d), &u); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, u.Kind)
		if u.Metadata.Labels[abi.LabelDeployApp] != "shop" {
			t.Errorf("%s: labels %v", u.Kind, u.Metadata.Labels)
		}
		switch u.Kind {
		case "Ingress":
			if u.Spec["ingressClassName"] != abi.IngressClassName {
				t.Errorf("Ingress: ingressClassName %v", u.Spec["ingressClassName"])
			}
		case "StaticBundle":
			if u.Spec["image"] != built.Bundles["site"] {
				t.Errorf("StaticBundle: image %v", u.Spec["image"])
			}
		}
	}
	if got := strings.Join(kinds, " "); got != "NetworkPolicy Service StaticBundle Deployment Ingress" {
		t.Errorf("kinds in order %s", got)
	}
}

// What a cluster cannot run as the project says is refused, naming the
// file, the document, the object and the field.
func TestRefusalsNameTheObjectAndField(t *testing.T) {
	for _, tc := range []struct{ edit, want string }{
		{"  containers:", `app.yaml: document 1 (Pod default/api): spec.nodeName: "kube32-worker-1" pins the pod to one node`},
		{"    image: wasm://embedded/api", `app.yaml: document 1 (Pod default/api): spec.containers[0].image: "wasm://embedded/other": no pod of kube32.yaml builds it (it builds wasm://embedded/api)`},
		{`{kube32.io/replicas: "3", note: kept}`, `app.yaml: document 1 (Pod default/api): metadata.annotations[kube32.io/replicas]: "many": want a number of replicas`},
		{"spec:\n  containers:", "app.yaml: document 1 (Pod default/api): spec.restartPolicy: \"Never\"; a Deployment's pods restart Always"},
	} {
		m := pod
		switch {
		case strings.HasPrefix(tc.want, "app.yaml: document 1 (Pod default/api): spec.nodeName"):
			m = strings.Replace(m, tc.edit, "  nodeName: kube32-worker-1\n"+tc.edit, 1)
		case strings.Contains(tc.want, "image"):
			m = strings.Replace(m, tc.edit, "    image: wasm://embedded/other", 1)
		case strings.Contains(tc.want, "replicas"):
			m = strings.Replace(m, tc.edit, `{kube32.io/replicas: "many"}`, 1)
		default:
			m = strings.Replace(m, tc.edit, "spec:\n  restartPolicy: Never\n  containers:", 1)
		}
		_, err := objects(t, m, built)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v\nwant %s…", err, tc.want)
		}
	}
	_, err := objects(t, "apiVersion: kube32.io/v1\nkind: StaticBundle\nmetadata: {name: docs}\n", built)
	if err == nil || !strings.Contains(err.Error(), `(StaticBundle default/docs): spec.image: empty, and no bundle of kube32.yaml is named "docs" (it builds site)`) {
		t.Errorf("a StaticBundle the project does not build: %v", err)
	}
}

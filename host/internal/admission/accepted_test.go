package admission

import "testing"

// Issue 19, item 4 ("never narrow what worked"): what kube-apiserver
// admits of the fields the new rules check still passes, init containers
// of any image among it, since kube32 does not run them.
func TestAdmitAcceptsWhatKubeAPIServerAccepts(t *testing.T) {
	for name, doc := range map[string]string{
		"pod": `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  activeDeadlineSeconds: 30
  hostname: web-0
  subdomain: svc
  dnsPolicy: ClusterFirst
  serviceAccountName: default
  readinessGates: [{conditionType: example.com/feature-1}]
  tolerations: [{operator: Exists}, {key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 5}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: disk, operator: In, values: [ssd]}]}]}
      preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, preference: {matchExpressions: [{key: zone, operator: Exists}]}}]
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}}]
  volumes: [{name: data, emptyDir: {}}]
  initContainers: [{name: init, image: busybox, imagePullPolicy: Always}]
  containers:
  - name: c
    image: wasm://embedded/web_v2.1
    imagePullPolicy: IfNotPresent
    volumeMounts: [{name: data, mountPath: /data}]
    livenessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 5}
    readinessProbe: {tcpSocket: {port: http}, successThreshold: 2}
`,
		"ExternalName service": "apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: default}\nspec: {type: ExternalName, externalName: db.example.com.}\n",
		"LoadBalancer service": "apiVersion: v1\nkind: Service\nmetadata: {name: lb, namespace: default}\nspec:\n  type: LoadBalancer\n  externalTrafficPolicy: Local\n  loadBalancerSourceRanges: [10.0.0.0/8, ' 192.168.0.0/16']\n  ipFamilyPolicy: SingleStack\n  ipFamilies: [IPv4]\n  ports: [{port: 80, nodePort: 30080}]\n",
		"headless service":     "apiVersion: v1\nkind: Service\nmetadata: {name: h, namespace: default}\nspec: {clusterIP: None, selector: {app: web}}\n",
		"service with IPs":     "apiVersion: v1\nkind: Service\nmetadata: {name: ips, namespace: default}\nspec: {clusterIP: 10.96.0.10, clusterIPs: [10.96.0.10], externalIPs: [192.0.2.1], externalTrafficPolicy: Cluster, ports: [{port: 80}]}\n",
		"ingress with TLS":     "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: default}\nspec:\n  tls: [{hosts: ['*.example.com', example.com], secretName: example-tls}]\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n",
	} {
		obj, strictErr, err := Decode("application/yaml", []byte(doc))
		if err != nil || strictErr != nil {
			t.Fatalf("%s: Decode: %v %v", name, strictErr, err)
		}
		if errs := Admit(obj); len(errs) > 0 {
			t.Errorf("%s refused: %v", name, errs.ToAggregate())
		}
	}
}

package abi

import "strings"

// Every name of the kube32 protocol is spelled in this file alone; the host,
// the CLI and the bundler refer to the constants. protocol_test.go fails
// when another non-test file of host/, cli/, bundler/ or abi/ spells one.

// Headers between nodes, pods and the API server.
const (
	// HeaderPrefix starts every kube32 header. A caller's headers with it
	// never reach a host outside the cluster.
	HeaderPrefix = "X-Kube32-"
	// HeaderPod names the target pod, "<namespace>/<name>", of a request
	// to a node's pod HTTP server.
	HeaderPod = "X-Kube32-Pod"
	// HeaderCallChain carries the call chain from pod to pod: the pods a
	// request came through, as comma-separated "<namespace>/<name>",
	// oldest first.
	HeaderCallChain = "X-Kube32-Call-Chain"
	// HeaderEgressResult is on every egress gateway answer: the host's
	// status, or the K32_ERR_* code of a call that failed before the host
	// answered.
	HeaderEgressResult = "X-Kube32-Egress-Result"
	// HeaderFrom names the publisher of a channel message POSTed to
	// ChannelsPath.
	HeaderFrom = "X-Kube32-From"
	// HeaderPodMissing is on a pod port's 404 for a pod that does not run
	// on the node (gone, or terminating): the pod HeaderPod named. The
	// Ingress and the calls of other nodes then try another pod.
	HeaderPodMissing = "X-Kube32-Pod-Missing"
)

// Labels.
const (
	// LabelNodeRolePrefix starts the node role labels; kubectl's ROLES
	// column shows what follows it.
	LabelNodeRolePrefix = "node-role.kubernetes.io/"
	// LabelControlPlane marks the control plane's Node.
	LabelControlPlane = "node-role.kubernetes.io/control-plane"
	// LabelNamespaceName is on every Namespace, with its name as value.
	LabelNamespaceName = "kubernetes.io/metadata.name"
	// LabelServiceName is on every EndpointSlice, with its Service's name.
	LabelServiceName = "kubernetes.io/service-name"
)

// Annotations.
const (
	// AnnotationEventStream on an Ingress serves paths as Server-Sent
	// Events of channel topics: "<path>=<topic>[,<topic>...][;<path>=...]".
	AnnotationEventStream = "kube32.io/event-stream"
	// AnnotationClusterTelemetry on an Ingress serves cluster telemetry
	// JSON on GET of its value, a path.
	AnnotationClusterTelemetry = "kube32.io/cluster-telemetry"
	// AnnotationStatsTopic on an Ingress publishes its stats message once
	// per StatsInterval on its value, a topic.
	AnnotationStatsTopic = "kube32.io/stats-topic"
	// AnnotationEventTopics on a Pod delivers the messages of the listed
	// topics, "<topic>[,<topic>...]", to its k32_event export.
	AnnotationEventTopics = "kube32.io/event-topics"
	// AnnotationBoardTime on a PodMetrics of the Metrics API holds the
	// board time of the pod's recent callbacks as JSON
	// (metricsv1beta1.BoardTime), which the web view shows and kubectl
	// ignores.
	AnnotationBoardTime = "kube32.io/board-time"
)

// IngressClassName is the only spec.ingressClassName the Ingress controller
// routes, besides none.
const IngressClassName = "kube32"

// Names on a Kubernetes cluster that runs kube32 nodes (docs/kubernetes.md).
const (
	// RuntimeClassName is the RuntimeClass of kube32 pods: its scheduling
	// sends them to kube32 nodes, whose TaintWasm it tolerates.
	RuntimeClassName = "kube32"
	// TaintWasm, with effect NoSchedule, is on every kube32 Node of a
	// Kubernetes cluster, so that container pods never land on it.
	TaintWasm = "kube32.io/wasm"
	// AnnotationPodPort on a kube32 Node of a Kubernetes cluster gives its
	// pod HTTP server's port, when its kubelet endpoint is the kubelet API
	// that kube-apiserver calls (logs, port-forward, stats).
	AnnotationPodPort = "kube32.io/pod-port"
)

// Names `kube32 install` gives its objects on a Kubernetes cluster
// (docs/kubernetes-install.md).
const (
	// IngressControllerName is spec.controller of the IngressClass
	// IngressClassName: the `kube32 ingress` controller.
	IngressControllerName = "kube32.io/ingress-controller"
	// NamespaceSystem holds the ServiceAccounts of the kube32 node and
	// Ingress controller that `kube32 install` binds to their ClusterRoles.
	NamespaceSystem = "kube32-system"
)

// Names `kube32 deploy` gives what it applies to a Kubernetes cluster
// (docs/kubernetes.md).
const (
	// LabelDeployApp is on every object kube32 deploy applies, and on the
	// pods of its Deployments, with the app's name: a later deploy prunes,
	// and deploy --delete removes, what carries it.
	LabelDeployApp = "kube32.io/app"
	// LabelDeployPod is on the pods of the Deployment that kube32 deploy
	// makes of a Pod, with the Pod's name; the Deployment selects them by
	// it and LabelDeployApp.
	LabelDeployPod = "kube32.io/pod"
	// AnnotationReplicas on a Pod of a project is how many replicas the
	// Deployment kube32 deploy makes of it runs.
	AnnotationReplicas = "kube32.io/replicas"
	// DeployFieldManager is the field manager of kube32 deploy's
	// server-side apply.
	DeployFieldManager = "kube32-deploy"
)

// NamespaceNodeLease holds one Lease per node, named after it, which the
// node renews every NodeLeaseRenewInterval, as kubelets do.
const NamespaceNodeLease = "kube-node-lease"

// Built-in topics of an AnnotationEventStream, generated by the Ingress
// controller itself.
const (
	// TopicCluster sends a cluster event with cluster telemetry JSON every
	// ClusterEventInterval.
	TopicCluster = "kube32.cluster"
	// TopicPresence sends a presence event, {"viewers":N}, whenever the
	// stream's viewer count changes.
	TopicPresence = "kube32.presence"
	// TopicReload sends a reload event, {"bundles":[...]}, when `kube32
	// serve --watch` has swapped in rebuilt StaticBundles.
	TopicReload = "kube32.reload"
)

// Paths the API server serves beyond the Kubernetes API.
const (
	// EgressPath is the egress gateway, where workers send their pods'
	// https:// calls; its query is pod=<namespace>/<name>&timeout=<ms>&limit=<bytes>.
	EgressPath = "/apis/kube32.io/v1/egress"
	// EgressContentType is the type of an egress gateway request's body:
	// the pod's request line, headers, a blank line and body.
	EgressContentType = "message/http"
	// ChannelsPath serves the channels: POST ChannelsPath/<topic>
	// publishes, GET ChannelsPath?watch=true streams every message.
	ChannelsPath = "/apis/kube32.io/v1/channels"
	// UplinkPath is the control plane's uplink: GET reads {"up":bool},
	// PUT {"up":bool} takes it up or down. A CONNECT <IPv4>:<port> request
	// to the API port relays a worker's connection to a host outside
	// through the control plane, as its NAT does on the boards.
	UplinkPath = "/apis/kube32.io/v1/uplink"
	// UIPath serves the web view of the cluster (docs/ui.md); UIPath +
	// "events" streams its activity as Server-Sent Events.
	UIPath = "/ui/"
	// TokenCookie is the name the web view's cookie had before
	// SessionCookie: browsers may still hold it, so it stays reserved
	// (ReservedCookies) and the API no longer accepts it.
	TokenCookie = "kube32-token"
)

// The web view's session (docs/ui.md). Cookies ignore ports, so a browser
// sends the view's cookie to the Ingress and pod ports of the same host
// too: no pod may see or set one of ReservedCookies (cookies.go).
const (
	// SessionCookie holds the cluster token in the web view's browser, set
	// by a POST to UIPath + "login" on the HTTPS API port (Secure,
	// HttpOnly, SameSite=Strict; the __Host- prefix makes the browser
	// refuse it without Secure, from plain HTTP, or with a Domain); the
	// API accepts it over HTTPS for reads as it accepts the bearer token.
	SessionCookie = "__Host-kube32-token"
)

// ReservedCookies are the cookie names that never reach a pod's
// k32_handle and that no pod may set.
var ReservedCookies = []string{SessionCookie, TokenCookie}

// NodeStatsPath is where a node's pod server (the kubelet endpoint of its
// Node) answers, to a request without HeaderPod, the usage of the node and
// its pods as metrics.k8s.io objects; the API server's Metrics API reads
// every node's.
const NodeStatsPath = "/kube32/stats"

// Log lines of the control plane's uplink, logged on each change.
const (
	// LogUplinkUp is logged when the uplink comes up: the name server the
	// access point offers, and the NAT table's internal RAM and PSRAM.
	LogUplinkUp = "[NET] uplink up: NAT from the cluster AP on, DNS %s offered (internal RAM %d bytes, PSRAM %d bytes)"
	// LogUplinkDown is logged when the uplink goes down.
	LogUplinkDown = "[NET] uplink down: NAT from the cluster AP off"
)

// Log lines of a node about a pod's refused k32_http_call (or another host
// function behind a capability), at most one per LogRateInterval for each
// pod. They are a kube32 addition to the boards' log lines.
const (
	// LogCallNoCapability: the pod ("<namespace>/<name>"), the host
	// function and the capability its container does not add; the pod
	// got K32_ERR_PERM.
	LogCallNoCapability = "[CALL] %s: %s refused: the container does not add capability %s"
	// LogCallNoReadyPod: the pod and the Service
	// ("<service>.<namespace>[:<port>]") that selects no ready pod; the
	// pod got K32_ERR_NOENT.
	LogCallNoReadyPod = "[CALL] %s -> %s refused: no ready pod behind the Service"
)

// ServiceCallHeaders are the only caller headers of a k32_http_call that
// reach a target pod behind a Service, in canonical form.
var ServiceCallHeaders = []string{"Content-Type", "Cookie", "X-Request-Id", "Accept-Encoding"}

// ConnectionHeaders are the headers the connection owns, in canonical form:
// a host outside the cluster never receives them from the caller.
var ConnectionHeaders = []string{"Host", "Content-Length", "Connection", "Transfer-Encoding", "Keep-Alive", "Upgrade", "Te", "Trailer", "Expect"}

// ProtocolName is one name of the protocol, as docs/limits.md lists it.
type ProtocolName struct {
	GoName string // the Go name in this package, e.g. "HeaderPod"
	Value  string
	Doc    string
	See    string // the page of docs/ that explains it
	// Shared marks a value that is also an ordinary word or header
	// elsewhere (the program's name, standard HTTP headers), so that
	// spelling it in another file is not a copy of this name.
	Shared bool
}

// ProtocolNames is every name of the protocol, in the order of this file.
var ProtocolNames = []ProtocolName{
	{GoName: "HeaderPrefix", Value: HeaderPrefix, See: "calls.md",
		Doc: "Starts every kube32 header; a caller's headers with it never reach a host outside the cluster."},
	{GoName: "HeaderPod", Value: HeaderPod, See: "calls.md",
		Doc: "The target pod, `<namespace>/<name>`, of a request to a node's pod HTTP server."},
	{GoName: "HeaderCallChain", Value: HeaderCallChain, See: "calls.md",
		Doc: "The pods an in-cluster call came through, comma-separated, oldest first; at most CallChainMax."},
	{GoName: "HeaderEgressResult", Value: HeaderEgressResult, See: "calls.md",
		Doc: "On every egress gateway answer: the host's status, or the K32_ERR_* code of a call that failed before the host answered."},
	{GoName: "HeaderFrom", Value: HeaderFrom, See: "channels.md",
		Doc: "The publisher of a channel message POSTed to ChannelsPath."},
	{GoName: "HeaderPodMissing", Value: HeaderPodMissing, See: "ingress.md",
		Doc: "On a pod port's 404 for a pod that does not run on its node (gone, or terminating): the pod named; the Ingress and the calls of other nodes try another pod of the Service."},
	{GoName: "LabelNodeRolePrefix", Value: LabelNodeRolePrefix, See: "kubectl.md",
		Doc: "Starts the node role labels; kubectl's ROLES column shows what follows it."},
	{GoName: "LabelControlPlane", Value: LabelControlPlane, See: "nodes.md",
		Doc: "Marks the control plane's Node."},
	{GoName: "LabelNamespaceName", Value: LabelNamespaceName, See: "networkpolicy.md",
		Doc: "On every Namespace, with its name; a NetworkPolicy's namespaceSelector matches it."},
	{GoName: "LabelServiceName", Value: LabelServiceName, See: "kubectl.md",
		Doc: "On every EndpointSlice, with the name of its Service."},
	{GoName: "AnnotationEventStream", Value: AnnotationEventStream, See: "channels.md",
		Doc: "Ingress: `<path>=<topic>[,<topic>...][;<path>=...]` serves each path as Server-Sent Events of the topics."},
	{GoName: "AnnotationClusterTelemetry", Value: AnnotationClusterTelemetry, See: "ingress.md",
		Doc: "Ingress: `<path>` serves cluster telemetry JSON on GET."},
	{GoName: "AnnotationStatsTopic", Value: AnnotationStatsTopic, See: "ingress.md",
		Doc: "Ingress: `<topic>` receives the Ingress's requests per second and viewers every StatsInterval."},
	{GoName: "AnnotationEventTopics", Value: AnnotationEventTopics, See: "channels.md",
		Doc: "Pod: `<topic>[,<topic>...]` delivers those topics' messages to the pod's k32_event export."},
	{GoName: "AnnotationBoardTime", Value: AnnotationBoardTime, See: "kubectl.md",
		Doc: "PodMetrics: the board time of the pod's recent callbacks as JSON (board, callbacks, p50Ms, p99Ms, slow, slowMs, totalMs), which the web view shows."},
	{GoName: "IngressClassName", Value: IngressClassName, See: "ingress.md", Shared: true,
		Doc: "The only spec.ingressClassName the Ingress controller routes, besides none."},
	{GoName: "RuntimeClassName", Value: RuntimeClassName, See: "kubernetes.md", Shared: true,
		Doc: "The RuntimeClass of kube32 pods on a Kubernetes cluster; its scheduling sends them to kube32 nodes."},
	{GoName: "TaintWasm", Value: TaintWasm, See: "kubernetes.md",
		Doc: "Taint (`true:NoSchedule`) on every kube32 Node of a Kubernetes cluster, so that container pods never land there."},
	{GoName: "AnnotationPodPort", Value: AnnotationPodPort, See: "kubernetes.md",
		Doc: "On a kube32 Node of a Kubernetes cluster: the port of its pod HTTP server; its kubelet endpoint is then the kubelet API."},
	{GoName: "IngressControllerName", Value: IngressControllerName, See: "kubernetes-install.md",
		Doc: "spec.controller of the IngressClass IngressClassName that `kube32 install` creates: the `kube32 ingress` controller."},
	{GoName: "NamespaceSystem", Value: NamespaceSystem, See: "kubernetes-install.md",
		Doc: "Namespace of the ServiceAccounts kube32-node and kube32-ingress that `kube32 install` binds to their ClusterRoles."},
	{GoName: "LabelDeployApp", Value: LabelDeployApp, See: "kubernetes.md",
		Doc: "On every object `kube32 deploy` applies and on its Deployments' pods, with the app's name: a later deploy prunes, and `deploy --delete` removes, what carries it."},
	{GoName: "LabelDeployPod", Value: LabelDeployPod, See: "kubernetes.md",
		Doc: "On the pods of the Deployment `kube32 deploy` makes of a Pod, with the Pod's name; the Deployment selects them by it and LabelDeployApp."},
	{GoName: "AnnotationReplicas", Value: AnnotationReplicas, See: "kubernetes.md",
		Doc: "Pod of a project: how many replicas the Deployment `kube32 deploy` makes of it runs (else `--replicas`, 1 by default)."},
	{GoName: "DeployFieldManager", Value: DeployFieldManager, See: "kubernetes.md",
		Doc: "The field manager of `kube32 deploy`'s server-side apply."},
	{GoName: "NamespaceNodeLease", Value: NamespaceNodeLease, See: "nodes.md",
		Doc: "Holds one Lease per node, named after it, renewed every NodeLeaseRenewInterval; a node silent for NodeMonitorGracePeriod is Ready=Unknown."},
	{GoName: "TopicCluster", Value: TopicCluster, See: "channels.md",
		Doc: "Built-in event stream topic: cluster telemetry every ClusterEventInterval."},
	{GoName: "TopicPresence", Value: TopicPresence, See: "channels.md",
		Doc: "Built-in event stream topic: `{\"viewers\":N}` whenever the stream's viewer count changes."},
	{GoName: "TopicReload", Value: TopicReload, See: "channels.md",
		Doc: "Built-in event stream topic: `{\"bundles\":[...]}` when `serve --watch` swapped in rebuilt StaticBundles."},
	{GoName: "EgressPath", Value: EgressPath, See: "calls.md",
		Doc: "The egress gateway on the API server, where workers send their pods' https:// calls."},
	{GoName: "EgressContentType", Value: EgressContentType, See: "calls.md",
		Doc: "The type of an egress gateway request's body: the pod's request line, headers and body."},
	{GoName: "ChannelsPath", Value: ChannelsPath, See: "channels.md",
		Doc: "The channels on the API server: POST `<path>/<topic>` publishes, GET `?watch=true` streams."},
	{GoName: "UplinkPath", Value: UplinkPath, See: "nodes.md",
		Doc: "The control plane's uplink on the API server: GET and PUT `{\"up\":bool}`; CONNECT relays a worker's connection to a host outside."},
	{GoName: "UIPath", Value: UIPath, See: "ui.md",
		Doc: "The web view of the cluster on the API server; `events` below it streams requests, calls and channel messages as Server-Sent Events."},
	{GoName: "TokenCookie", Value: TokenCookie, See: "ui.md",
		Doc: "The web view's cookie before SessionCookie: reserved, never reaches a pod, no pod may set it; the API no longer accepts it."},
	{GoName: "SessionCookie", Value: SessionCookie, See: "ui.md",
		Doc: "The cookie that holds the cluster token in the web view's browser, on the HTTPS API port only (Secure, HttpOnly, SameSite=Strict); the API accepts it over HTTPS for reads (GET, HEAD) as it accepts the bearer token. It never reaches a pod, and no pod may set it."},
	{GoName: "ReservedCookies", Value: strings.Join(ReservedCookies, ", "), See: "ui.md", Shared: true,
		Doc: "The cookies that never reach a pod (the node takes them out of every request's Cookie header) and that no pod may set (k32_resp_header answers K32_ERR_INVAL)."},
	{GoName: "NodeStatsPath", Value: NodeStatsPath, See: "kubectl.md",
		Doc: "On a node's pod port, without the pod header: the usage of the node and its pods, which the Metrics API reads."},
	{GoName: "LogUplinkUp", Value: LogUplinkUp, See: "nodes.md",
		Doc: "Logged by the control plane when its uplink comes up: the name server offered and the NAT table's memory."},
	{GoName: "LogUplinkDown", Value: LogUplinkDown, See: "nodes.md",
		Doc: "Logged by the control plane when its uplink goes down."},
	{GoName: "LogCallNoCapability", Value: LogCallNoCapability, See: "calls.md",
		Doc: "Logged by a node when a pod calls a host function its container lacks the capability of (kube32 addition)."},
	{GoName: "LogCallNoReadyPod", Value: LogCallNoReadyPod, See: "calls.md",
		Doc: "Logged by a node when a pod calls a Service that selects no ready pod (kube32 addition)."},
	{GoName: "ServiceCallHeaders", Value: strings.Join(ServiceCallHeaders, ", "), See: "calls.md", Shared: true,
		Doc: "The only caller headers that reach a target pod behind a Service."},
	{GoName: "ConnectionHeaders", Value: strings.Join(ConnectionHeaders, ", "), See: "calls.md", Shared: true,
		Doc: "The headers the connection owns: a host outside the cluster never receives them from the caller."},
}

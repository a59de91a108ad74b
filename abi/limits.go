package abi

import "time"

// Every number the protocol fixes is defined in this file alone, and the
// host refers to the constants. Some (stack budgets, the pod sync period)
// bound only the boards' firmware: they are here so that docs/limits.md
// lists them.

// Calls (k32_http_call).
const (
	// CallTimeoutDefault is a call's timeout when the pod passes 0.
	CallTimeoutDefault = 5000 * time.Millisecond
	// CallTimeoutMax bounds a call's timeout.
	CallTimeoutMax = 60000 * time.Millisecond
	// CallChainMax is how long a call chain may grow: a call whose chain,
	// caller included, has reached it fails with ErrLoop.
	CallChainMax = 8
	// ControlPlaneHeadLimit bounds a response head on the control plane,
	// which makes every https:// connection.
	ControlPlaneHeadLimit = 8 << 10
	// WorkerHeadLimit bounds a response head on a worker.
	WorkerHeadLimit = 1 << 10
	// TLSSessions is how many https:// calls the control plane makes at
	// once; one more fails with ErrBusy at once.
	TLSSessions = 2
	// TLSSessionStack is the stack of each TLS session thread, in PSRAM.
	TLSSessionStack = 12 << 10
	// InProcessCallStackBoard is the free native stack a board needs to
	// call a pod of its own node in-process; with less the call fails with
	// ErrNoMem.
	InProcessCallStackBoard = 16 << 10
	// InProcessCallStackSimulator is InProcessCallStackBoard on the
	// simulator.
	InProcessCallStackSimulator = 128 << 10
	// CallbackStack is the native stack that one pod callback is counted
	// to take from the interpreter stack it runs on (a board's
	// Board.InterpreterStack): the interpreter's frames and the host
	// functions'. A callback entered from outside takes one; each
	// in-process call one more, and is made only while
	// InProcessCallStackBoard is left (docs/calls.md).
	CallbackStack = 8 << 10
	// InterpreterStackPSRAM is the node's shared interpreter stack, on
	// which every pod callback runs, in PSRAM.
	InterpreterStackPSRAM = 48 << 10
	// InterpreterStackInternal is the interpreter stack on boards without
	// PSRAM, in internal RAM.
	InterpreterStackInternal = 32 << 10
)

// Caches and periods of a worker's view of the API.
const (
	// APICacheTTL is how long a worker keeps what it fetched from the API
	// server: a Service and its Endpoints, and a pod behind a Service or a
	// Namespace read for a NetworkPolicy rule.
	APICacheTTL = 3 * time.Second
	// PolicyRelist is how often a worker lists again the NetworkPolicies
	// of every namespace with pods on the node.
	PolicyRelist = 5 * time.Second
	// PodSyncInterval is how often a board's kubelet syncs its pods (and
	// records their labels for NetworkPolicy).
	PodSyncInterval = 2 * time.Second
	// EventCacheMax bounds the Events a worker remembers having written,
	// to count a repeat on without reading the Event; past it the oldest
	// is forgotten.
	EventCacheMax = 1024
)

// DefaultMemoryLimit caps the linear memory of a container without
// resources.limits.memory under serve (its --default-memory-limit): 8 MiB,
// the PSRAM of the largest board. The scheduler of serve --board, and so
// the fit report of kube32 build, count it as the memory such a container
// requests.
const DefaultMemoryLimit = 8 << 20

// The Ingress controller.
const (
	// IngressRebuildMinInterval is the least time between two rebuilds of
	// the routing table on the request path.
	IngressRebuildMinInterval = 250 * time.Millisecond
	// IngressRebuildTick is the controller's tick: a rebuild when the
	// store changed, and the stats of AnnotationStatsTopic.
	IngressRebuildTick = time.Second
	// RetryAfterNoPod is the Retry-After of the 503 answered when a
	// Service selects no running pod.
	RetryAfterNoPod = 2 * time.Second
	// IngressWorkerStackPSRAM is the ingress worker's stack in PSRAM.
	IngressWorkerStackPSRAM = 16 << 10
	// IngressWorkerStackInternal is the ingress worker's stack on boards
	// without PSRAM, in internal RAM.
	IngressWorkerStackInternal = 8 << 10
	// StatsInterval is how often an AnnotationStatsTopic message is
	// published.
	StatsInterval = time.Second
	// ClusterEventInterval is how often a TopicCluster stream sends
	// cluster telemetry while a client is connected.
	ClusterEventInterval = 2 * time.Second
)

// The egress gateway, channels and logs.
const (
	// RetryAfterGatewayBusy is the Retry-After of the gateway's 503 when
	// every TLS session is in use.
	RetryAfterGatewayBusy = time.Second
	// EventsStackInternal is the stack of the k32_events thread in
	// internal RAM.
	EventsStackInternal = 6 << 10
	// EventsStackPSRAM is the stack of the k32_events thread in PSRAM.
	EventsStackPSRAM = 8 << 10
	// LogRateInterval spaces the rate-limited [NETPOL] and [EGRESS] log
	// lines: at most one per interval.
	LogRateInterval = time.Second
	// NATTableSize is the control plane's NAT table, from PSRAM.
	NATTableSize = 16 << 10
)

// MetricsWindow is the window the Metrics API averages a pod's CPU over:
// the usage is the CPU time its callbacks took in about the last
// MetricsWindow, divided by the window's length (metrics-server's default
// resolution).
const MetricsWindow = 15 * time.Second

// BoardTimeWindow is how many of a pod's last callbacks the percentiles of
// its board time cover (the web view's p50 and p99, docs/boards.md).
const BoardTimeWindow = 256

// Node liveness, with a kubelet's and kube-controller-manager's numbers.
const (
	// NodeLeaseDuration is the leaseDurationSeconds of the Lease every
	// node holds in NamespaceNodeLease.
	NodeLeaseDuration = 40 * time.Second
	// NodeLeaseRenewInterval is how often a node renews its Lease.
	NodeLeaseRenewInterval = 10 * time.Second
	// NodeMonitorGracePeriod is how long a node's Lease may go unrenewed
	// before the node controller marks the node Ready=Unknown and its
	// pods not Ready.
	NodeMonitorGracePeriod = 40 * time.Second
	// NodeMonitorPeriod is how often the node controller looks at the
	// Leases.
	NodeMonitorPeriod = 5 * time.Second
)

// Watches of the API server, with kube-apiserver's numbers where it has one.
const (
	// WatchHistory is how many change events (of every kind together) the
	// store keeps for watches that resume from a resourceVersion; a watch
	// from an older one gets 410 Gone and the client lists again.
	WatchHistory = 4096
	// WatchBookmarkInterval is how often a watch that allows bookmarks gets
	// one (and once more 2 s before its timeoutSeconds), as kube-apiserver
	// sends them.
	WatchBookmarkInterval = time.Minute
)

// Guesses of the cluster token (docs/serve.md, "Hostile clients").
const (
	// TokenGuessBurst is how many wrong cluster tokens (bearer tokens, the
	// web view's cookie or login) one client address may send at once; a
	// kube32 node's kubelet API reviews as many new bearer tokens of one
	// address at once, and TokenGuessRate more a second
	// (docs/kubeletapi.md).
	TokenGuessBurst = 10
	// TokenGuessRate is how many more per second refill that burst; a
	// client past it gets 429 with Retry-After for every token it sends,
	// right or wrong, until one has refilled.
	TokenGuessRate = 2
	// TokenGuessClients is how many client addresses the API server keeps
	// count of at once; past it, the new ones share one count.
	TokenGuessClients = 1024
)

// What a pod may make its node hold for one request: past each, the host
// function returns ErrTooBig before copying anything out of guest memory
// (docs/serve.md, "Hostile clients").
const (
	// RespHeadersMax is how many response headers k32_resp_header queues
	// for one response.
	RespHeadersMax = 100
	// RespHeaderBytesMax bounds the queued response headers of one
	// response, counted as "Name: value\r\n" lines.
	RespHeaderBytesMax = 32 << 10
	// CallHeadBytesMax bounds the method, URL and headers arguments of
	// one k32_http_call together.
	CallHeadBytesMax = 32 << 10
	// ChannelMessageMax bounds a channel message's payload (k32_publish):
	// a message is copied into every subscriber's queue.
	ChannelMessageMax = 64 << 10
	// ChannelTopicMax bounds a channel topic's name; a longer one is
	// refused with ErrInval.
	ChannelTopicMax = 256
)

// A pod's answer on its way to a client (docs/serve.md, "Hostile
// clients"): the node takes what the client has not read yet into a
// buffer that the client drains, so that the pod's callback ends as soon
// as it has written, and a client that does not read costs buffer space,
// not the pod.
const (
	// RespBufferMemory bounds what one answer's buffer holds in memory;
	// the rest goes to a temporary file.
	RespBufferMemory = 1 << 20
	// RespBufferFile bounds one answer's temporary file; past it the pod's
	// writes wait for the client, at most one callback deadline in all.
	RespBufferFile = 16 << 20
	// RespBufferMemoryNode bounds the answers' buffers in memory of a node
	// together (the nodes of one process share it); past it an answer
	// goes to its temporary file at once.
	RespBufferMemoryNode = 64 << 20
	// RespBufferFileNode bounds the answers' temporary files of a node
	// together; past it the pod's writes wait for the client.
	RespBufferFileNode = 1 << 30
)

// Module budgets: what a module may hold, as the boards' interpreter would
// refuse it at load. abi/modcheck counts them on the module's bytes before
// anything compiles it, so that refusing a module costs a node one pass
// over its bytes, and compiling one within them a bounded time and memory
// (docs/boards.md, "Module budgets", explains the numbers).
const (
	// FunctionLocalsMax bounds the locals one function declares, its
	// parameters not counted.
	FunctionLocalsMax = 50000
	// ModuleLocalsMax bounds the locals a module's functions declare
	// together.
	ModuleLocalsMax = 1 << 20
	// FunctionBytesMax bounds one function's body: its locals and code.
	FunctionBytesMax = 1 << 20
	// CodeBytesMax bounds a module's code section, every function's body
	// together: no board's app image holds more.
	CodeBytesMax = 16 << 20
	// BlockDepthMax bounds how deep blocks, loops and ifs nest in one
	// function.
	BlockDepthMax = 16384
	// BrTableTargetsMax bounds the targets of one br_table, its default
	// not counted.
	BrTableTargetsMax = 16384
	// CompileWeightMax bounds the sum, over a module's functions, of the
	// square of each one's blocks, loops and ifs (an if counting twice),
	// and over its br_tables, of the square of each one's targets: what
	// compiling a function costs grows with those squares.
	CompileWeightMax = 1 << 29
	// FunctionsMax bounds a module's functions, imported and defined.
	FunctionsMax = 100000
	// GlobalsMax bounds a module's globals, imported and defined.
	GlobalsMax = 65536
	// TypesMax bounds the entries of a module's type section.
	TypesMax = 65536
	// TableEntriesMax bounds the initial size of a module's tables.
	TableEntriesMax = 1 << 18
	// SectionsMax bounds the sections of a module, custom ones included,
	// and those of a component: toolchains write a few dozen, and a file
	// of millions of empty sections costs every reader a step and often an
	// allocation for each.
	SectionsMax = 4096
	// PrebuiltBytesMax bounds the file of a prebuilt module or component
	// (a pod of language wasm) that kube32 build reads: a larger one is
	// refused before it is read. No node pulls a larger module
	// (OCIModuleBytesMax).
	PrebuiltBytesMax = OCIModuleBytesMax
)

// A pod's log: what one line may hold, and the rate limit its lines pass
// before they reach serve's output and the history of kubectl logs
// (docs/serve.md).
const (
	// LogLineMax bounds one line of a pod's log; a longer one is cut.
	LogLineMax = 8 << 10
	// LogBurstLines and LogBurstBytes are what a pod may log at once.
	LogBurstLines = 500
	LogBurstBytes = 256 << 10
	// LogRateLines and LogRateBytes, per second, refill the burst.
	LogRateLines = 100
	LogRateBytes = 32 << 10
	// LogHistoryLines and LogHistoryBytes bound the lines a node keeps of
	// a pod for kubectl logs; the oldest go first.
	LogHistoryLines = 1000
	LogHistoryBytes = 1 << 20
)

// OCI images a node pulls (docs/oci.md).
const (
	// OCIModuleBytesMax bounds the module layer of an OCI image: a larger
	// layer is refused before it is downloaded.
	OCIModuleBytesMax = 32 << 20
	// ImagePullBackoffInitial is the wait after a failed pull (or a look
	// for a wasm:// module missing from the image trees) before the next;
	// it doubles after each failure up to ImagePullBackoffMax, as a
	// kubelet's does.
	ImagePullBackoffInitial = 10 * time.Second
	ImagePullBackoffMax     = 300 * time.Second
	// OCICacheBytesMax bounds the layers (modules and StaticBundles) a
	// node keeps in its disk cache; past it the least recently used go
	// first.
	OCICacheBytesMax = 512 << 20
)

// The reviews of a kube32 node's kubelet API on a Kubernetes cluster
// (docs/kubeletapi.md): the answers of kube-apiserver's TokenReviews and
// SubjectAccessReviews it keeps, as a kubelet in webhook mode keeps them.
const (
	// KubeletTokenReviewTTL is how long an authenticated bearer token is
	// taken without asking again (a kubelet's authentication cacheTTL).
	KubeletTokenReviewTTL = 2 * time.Minute
	// KubeletAccessAllowedTTL is how long an allowed access is taken
	// without asking again (cacheAuthorizedTTL).
	KubeletAccessAllowedTTL = 5 * time.Minute
	// KubeletDeniedTTL is how long a refused token or a denied access
	// stays refused without asking again (cacheUnauthorizedTTL).
	KubeletDeniedTTL = 30 * time.Second
	// KubeletReviewCacheMax bounds the answers kept, of authenticated
	// tokens, of refused tokens and of accesses each; past it the oldest
	// go first, so that refused tokens never push out authenticated ones.
	KubeletReviewCacheMax = 4096
	// KubeletReviewQPS and KubeletReviewBurst are the node's budget of
	// reviews, TokenReviews and SubjectAccessReviews together, a second
	// (a kubelet's kubeAPIQPS and kubeAPIBurst): a review past it waits
	// its turn, and answers 503 past its 10 s.
	KubeletReviewQPS   = 50
	KubeletReviewBurst = 100
	// KubeletReviewsInFlight is how many reviews the node has asked at
	// once, enough to reach KubeletReviewQPS at 300 ms a review; the next
	// waits for one to end.
	KubeletReviewsInFlight = 16
)

// A kube32 node's client certificate on a Kubernetes cluster
// (docs/kubernetes.md, "The node's identity"), kept as a kubelet keeps its
// own.
const (
	// NodeCertRenewPercent is how much of its certificate's validity
	// passes before the node asks for the next one, as itself (a kubelet
	// renews between 70 and 90 %).
	NodeCertRenewPercent = 80
	// NodeCertRetry is the wait after a failed renewal before the next.
	NodeCertRetry = time.Minute
	// NodeCSRPatience bounds the wait for a CertificateSigningRequest to
	// be approved and signed (a kubelet's bootstrap waits an hour).
	NodeCSRPatience = time.Hour
)

// StaticBundles pushed to an OCI registry (docs/oci.md, "Bundles"):
// `kube32 push` refuses a folder past them and the Ingress controller a
// pulled bundle past them, before it is unpacked.
const (
	// OCIBundleBytesMax bounds the layer of a bundle artifact (a tar of
	// its files); a larger layer is refused before it is downloaded.
	OCIBundleBytesMax = 32 << 20
	// OCIBundleFilesMax bounds the files of a bundle artifact.
	OCIBundleFilesMax = 10000
	// OCIBundlePathMax bounds the path of one file of a bundle artifact,
	// in bytes.
	OCIBundlePathMax = 255
)

// kube32 deploy (docs/kubernetes.md).
const (
	// DeployTimeoutDefault is how long kube32 deploy waits for its
	// Deployments to roll out when --timeout does not say.
	DeployTimeoutDefault = 5 * time.Minute
	// DeployAddressWait bounds the wait, after the rollouts, for each
	// Ingress's address, which the kube32 Ingress controller writes.
	DeployAddressWait = 30 * time.Second
)

// kube32 test (docs/testing.md).
const (
	// TestExpandBytesMax bounds what one request of a test file (its URL,
	// query, form, headers and body together), one capture or one assert
	// becomes once its {{variables}} are expanded: past it the entry fails
	// before anything is built.
	TestExpandBytesMax = 16 << 20
)

// Limit is one number of the protocol, as docs/limits.md lists it.
type Limit struct {
	GoName string // the constant in this package, e.g. "CallTimeoutMax"
	Value  int64  // in Unit
	Unit   string // "ms", "s", "KiB", or "" for a count
	Doc    string // what it bounds
	See    string // the page of docs/ that explains it
}

// Limits is every number of the protocol, in the order of this file.
var Limits = []Limit{
	{"CallTimeoutDefault", ms(CallTimeoutDefault), "ms", "k32_http_call's timeout_ms when the pod passes 0.", "calls.md"},
	{"CallTimeoutMax", ms(CallTimeoutMax), "ms", "The largest timeout_ms of k32_http_call; larger values are lowered to it.", "calls.md"},
	{"CallChainMax", CallChainMax, "", "Pods in a call chain, caller included; a call beyond fails with K32_ERR_LOOP.", "calls.md"},
	{"ControlPlaneHeadLimit", kib(ControlPlaneHeadLimit), "KiB", "A response head on the control plane; a larger one fails the call with K32_ERR_IO.", "calls.md"},
	{"WorkerHeadLimit", kib(WorkerHeadLimit), "KiB", "A response head on a worker; a larger one fails the call with K32_ERR_IO.", "calls.md"},
	{"TLSSessions", TLSSessions, "", "https:// calls the control plane makes at once; one more fails with K32_ERR_BUSY.", "calls.md"},
	{"TLSSessionStack", kib(TLSSessionStack), "KiB", "The stack of each TLS session thread, in PSRAM (boards).", "calls.md"},
	{"InProcessCallStackBoard", kib(InProcessCallStackBoard), "KiB", "Free native stack for a call to a pod of the same node on a board; less fails with K32_ERR_NOMEM.", "calls.md"},
	{"InProcessCallStackSimulator", kib(InProcessCallStackSimulator), "KiB", "The same on the simulator.", "calls.md"},
	{"CallbackStack", kib(CallbackStack), "KiB", "The native stack one pod callback is counted to take from the interpreter stack (boards, and serve --board).", "calls.md"},
	{"InterpreterStackPSRAM", kib(InterpreterStackPSRAM), "KiB", "The node's shared interpreter stack, on which pod callbacks run, in PSRAM (boards).", "calls.md"},
	{"InterpreterStackInternal", kib(InterpreterStackInternal), "KiB", "The interpreter stack in internal RAM, on boards without PSRAM.", "calls.md"},
	{"APICacheTTL", secs(APICacheTTL), "s", "How long a worker keeps a Service and its Endpoints, and a pod behind a Service read for a NetworkPolicy rule, fetched from the API server.", "calls.md"},
	{"PolicyRelist", secs(PolicyRelist), "s", "How often a worker lists again the NetworkPolicies of the namespaces with pods on the node.", "networkpolicy.md"},
	{"PodSyncInterval", secs(PodSyncInterval), "s", "How often a board's kubelet syncs its pods and records their labels.", "networkpolicy.md"},
	{"EventCacheMax", EventCacheMax, "", "Events a worker remembers having written, to count a repeat on without reading it (a Kubernetes cluster does not let a node read Events); past it the oldest is forgotten.", "kubernetes.md"},
	{"DefaultMemoryLimit", kib(DefaultMemoryLimit), "KiB", "The memory cap of a container without resources.limits.memory under serve (--default-memory-limit), and what serve --board's scheduler and build's fit report count it as requesting.", "serve.md"},
	{"IngressRebuildMinInterval", ms(IngressRebuildMinInterval), "ms", "The least time between two rebuilds of the Ingress routing table on the request path.", "ingress.md"},
	{"IngressRebuildTick", secs(IngressRebuildTick), "s", "The Ingress controller's tick, which rebuilds a stale routing table.", "ingress.md"},
	{"RetryAfterNoPod", secs(RetryAfterNoPod), "s", "Retry-After of the Ingress's 503 when the Service selects no running pod.", "ingress.md"},
	{"IngressWorkerStackPSRAM", kib(IngressWorkerStackPSRAM), "KiB", "The ingress worker's stack in PSRAM (boards).", "ingress.md"},
	{"IngressWorkerStackInternal", kib(IngressWorkerStackInternal), "KiB", "The ingress worker's stack in internal RAM, on boards without PSRAM.", "ingress.md"},
	{"StatsInterval", secs(StatsInterval), "s", "How often an Ingress's stats message (AnnotationStatsTopic) is published.", "ingress.md"},
	{"ClusterEventInterval", secs(ClusterEventInterval), "s", "How often a cluster telemetry event stream sends while a client is connected.", "channels.md"},
	{"RetryAfterGatewayBusy", secs(RetryAfterGatewayBusy), "s", "Retry-After of the egress gateway's 503 when every TLS session is in use.", "calls.md"},
	{"EventsStackInternal", kib(EventsStackInternal), "KiB", "The stack of the k32_events thread in internal RAM (boards).", "channels.md"},
	{"EventsStackPSRAM", kib(EventsStackPSRAM), "KiB", "The stack of the k32_events thread in PSRAM (boards).", "channels.md"},
	{"LogRateInterval", secs(LogRateInterval), "s", "At most one rate-limited [NETPOL] or [EGRESS] log line per interval (per node), and one [CALL] line per pod.", "networkpolicy.md"},
	{"NATTableSize", kib(NATTableSize), "KiB", "The control plane's NAT table for the access point's stations, from PSRAM (boards).", "nodes.md"},
	{"NodeLeaseDuration", secs(NodeLeaseDuration), "s", "The leaseDurationSeconds of every node's Lease (NamespaceNodeLease).", "nodes.md"},
	{"NodeLeaseRenewInterval", secs(NodeLeaseRenewInterval), "s", "How often a node renews its Lease.", "nodes.md"},
	{"NodeMonitorGracePeriod", secs(NodeMonitorGracePeriod), "s", "A node whose Lease goes unrenewed this long is Ready=Unknown and its pods not Ready.", "nodes.md"},
	{"NodeMonitorPeriod", secs(NodeMonitorPeriod), "s", "How often the node controller looks at the Leases.", "nodes.md"},
	{"MetricsWindow", secs(MetricsWindow), "s", "The Metrics API's window: a pod's CPU is the time its callbacks ran in about the last window, over the window.", "kubectl.md"},
	{"BoardTimeWindow", BoardTimeWindow, "", "How many of a pod's last callbacks the percentiles of its board time (the web view's p50 and p99) cover.", "boards.md"},
	{"WatchHistory", WatchHistory, "", "Change events (all kinds together) kept for watches that resume from a resourceVersion; an older one gets 410 Gone.", "kubectl.md"},
	{"WatchBookmarkInterval", secs(WatchBookmarkInterval), "s", "How often a watch with allowWatchBookmarks=true gets a BOOKMARK event (and 2 s before its timeoutSeconds).", "kubectl.md"},
	{"TokenGuessBurst", TokenGuessBurst, "", "Wrong cluster tokens (bearer, the web view's cookie or login) a client address may send at once; a kube32 node's kubelet API reviews as many new bearer tokens of one address at once, and TokenGuessRate more a second (kubeletapi.md).", "serve.md"},
	{"TokenGuessRate", TokenGuessRate, "", "Wrong cluster tokens per second that refill a client's burst; past it the API answers 429 with Retry-After to every token it sends.", "serve.md"},
	{"TokenGuessClients", TokenGuessClients, "", "Client addresses whose wrong tokens the API server counts apart; past it the new ones share one count.", "serve.md"},
	{"RespHeadersMax", RespHeadersMax, "", "Response headers k32_resp_header queues for one response; one more returns K32_ERR_TOOBIG.", "abi.md"},
	{"RespHeaderBytesMax", kib(RespHeaderBytesMax), "KiB", "The queued response headers of one response, as \"Name: value\\r\\n\" lines; a header past it returns K32_ERR_TOOBIG.", "abi.md"},
	{"CallHeadBytesMax", kib(CallHeadBytesMax), "KiB", "The method, URL and headers arguments of one k32_http_call together; longer ones return K32_ERR_TOOBIG.", "calls.md"},
	{"ChannelMessageMax", kib(ChannelMessageMax), "KiB", "A channel message's payload; a larger one returns K32_ERR_TOOBIG from k32_publish.", "channels.md"},
	{"RespBufferMemory", kib(RespBufferMemory), "KiB", "What the node holds in memory of one answer that its client has not read yet; the rest goes to a temporary file.", "serve.md"},
	{"RespBufferFile", kib(RespBufferFile), "KiB", "One answer's temporary file; past it the pod's writes wait for the client, at most one callback deadline in all, then fail with K32_ERR_IO.", "serve.md"},
	{"RespBufferMemoryNode", kib(RespBufferMemoryNode), "KiB", "The answers' buffers in memory of a node (of the process) together; past it answers go to their temporary files.", "serve.md"},
	{"RespBufferFileNode", kib(RespBufferFileNode), "KiB", "The answers' temporary files of a node (of the process) together; past it the pod's writes wait for the client.", "serve.md"},
	{"LogLineMax", kib(LogLineMax), "KiB", "One line of a pod's log (k32_log, stdout, stderr), once escaped; a longer one is cut.", "serve.md"},
	{"LogBurstLines", LogBurstLines, "", "Log lines a pod may write at once before its rate limit drops lines.", "serve.md"},
	{"LogBurstBytes", kib(LogBurstBytes), "KiB", "Log bytes a pod may write at once before its rate limit drops lines.", "serve.md"},
	{"LogRateLines", LogRateLines, "", "Log lines per second that refill a pod's burst.", "serve.md"},
	{"LogRateBytes", kib(LogRateBytes), "KiB", "Log bytes per second that refill a pod's burst.", "serve.md"},
	{"LogHistoryLines", LogHistoryLines, "", "Lines of a pod's log a node keeps for kubectl logs; the oldest go first.", "kubectl.md"},
	{"LogHistoryBytes", kib(LogHistoryBytes), "KiB", "Bytes of a pod's log a node keeps for kubectl logs.", "kubectl.md"},
	{"ChannelTopicMax", ChannelTopicMax, "", "Bytes of a channel topic's name; a longer one returns K32_ERR_INVAL.", "channels.md"},
	{"FunctionLocalsMax", FunctionLocalsMax, "", "Locals one function of a module declares, its parameters not counted; a module over any module budget does not build or start.", "boards.md"},
	{"ModuleLocalsMax", ModuleLocalsMax, "", "Locals that the functions of a module declare together.", "boards.md"},
	{"FunctionBytesMax", kib(FunctionBytesMax), "KiB", "The body of one function of a module, locals and code.", "boards.md"},
	{"CodeBytesMax", kib(CodeBytesMax), "KiB", "A module's code section, every function's body together.", "boards.md"},
	{"BlockDepthMax", BlockDepthMax, "", "How deep blocks, loops and ifs nest in one function.", "boards.md"},
	{"BrTableTargetsMax", BrTableTargetsMax, "", "Targets of one br_table, its default not counted.", "boards.md"},
	{"CompileWeightMax", CompileWeightMax, "", "The sum over a module's functions of the square of their blocks, loops and ifs (an if counts twice), and over its br_tables of the square of their targets.", "boards.md"},
	{"FunctionsMax", FunctionsMax, "", "Functions of a module, imported and defined.", "boards.md"},
	{"GlobalsMax", GlobalsMax, "", "Globals of a module, imported and defined.", "boards.md"},
	{"TypesMax", TypesMax, "", "Entries of a module's type section.", "boards.md"},
	{"TableEntriesMax", TableEntriesMax, "", "The initial size of a module's tables.", "boards.md"},
	{"SectionsMax", SectionsMax, "", "Sections of a module (custom ones included) or of a component.", "boards.md"},
	{"PrebuiltBytesMax", kib(PrebuiltBytesMax), "KiB", "The file of a prebuilt module or component (a pod of language wasm); kube32 build refuses a larger one before reading it.", "components.md"},
	{"OCIModuleBytesMax", kib(OCIModuleBytesMax), "KiB", "The module layer of an OCI image a node pulls; a larger one is refused before it is downloaded (ErrImagePull).", "oci.md"},
	{"ImagePullBackoffInitial", secs(ImagePullBackoffInitial), "s", "The wait after a failed pull of an OCI image (a pod's or a StaticBundle's), or a look for a wasm:// module missing from the node's image trees, before the next (ImagePullBackOff); it doubles after each failure.", "oci.md"},
	{"ImagePullBackoffMax", secs(ImagePullBackoffMax), "s", "The longest wait between pulls of an image that keeps failing.", "oci.md"},
	{"OCICacheBytesMax", kib(OCICacheBytesMax), "KiB", "The layers of OCI images (modules and StaticBundles) a node keeps in its disk cache; past it the least recently used go, and are pulled again when next needed.", "oci.md"},
	{"KubeletTokenReviewTTL", secs(KubeletTokenReviewTTL), "s", "How long a kube32 node's kubelet API takes a bearer token that a TokenReview authenticated without asking again.", "kubeletapi.md"},
	{"KubeletAccessAllowedTTL", secs(KubeletAccessAllowedTTL), "s", "How long the kubelet API takes an access a SubjectAccessReview allowed without asking again.", "kubeletapi.md"},
	{"KubeletDeniedTTL", secs(KubeletDeniedTTL), "s", "How long the kubelet API refuses a token or an access that a review refused without asking again.", "kubeletapi.md"},
	{"KubeletReviewCacheMax", KubeletReviewCacheMax, "", "Review answers the kubelet API keeps, of authenticated tokens, of refused tokens and of accesses each; past it the oldest go first.", "kubeletapi.md"},
	{"KubeletReviewQPS", KubeletReviewQPS, "", "TokenReviews and SubjectAccessReviews together the kubelet API asks a second, after a burst of KubeletReviewBurst; past it a review waits its turn.", "kubeletapi.md"},
	{"KubeletReviewBurst", KubeletReviewBurst, "", "Reviews the kubelet API may ask at once before KubeletReviewQPS paces them.", "kubeletapi.md"},
	{"KubeletReviewsInFlight", KubeletReviewsInFlight, "", "Reviews the kubelet API waits the answer of at once; the next waits for one to end.", "kubeletapi.md"},
	{"NodeCertRenewPercent", NodeCertRenewPercent, "", "The percentage of its client certificate's validity that passes before a kube32 node of a Kubernetes cluster asks for the next one.", "kubernetes.md"},
	{"NodeCertRetry", secs(NodeCertRetry), "s", "The wait after a failed renewal of a node's certificate before the next.", "kubernetes.md"},
	{"NodeCSRPatience", secs(NodeCSRPatience), "s", "How long a node waits for its CertificateSigningRequest to be approved and signed before it gives up.", "kubernetes.md"},
	{"OCIBundleBytesMax", kib(OCIBundleBytesMax), "KiB", "The layer (a tar of its files) of a StaticBundle pushed to an OCI registry; kube32 push refuses a larger bundle and the Ingress a larger layer before it is downloaded (503).", "oci.md"},
	{"OCIBundleFilesMax", OCIBundleFilesMax, "", "Files of a StaticBundle pushed to an OCI registry.", "oci.md"},
	{"OCIBundlePathMax", OCIBundlePathMax, "", "Bytes of the path of one file of a StaticBundle pushed to an OCI registry.", "oci.md"},
	{"DeployTimeoutDefault", secs(DeployTimeoutDefault), "s", "How long kube32 deploy waits for its Deployments to roll out unless --timeout says otherwise.", "kubernetes.md"},
	{"DeployAddressWait", secs(DeployAddressWait), "s", "How long kube32 deploy waits, after the rollouts, for each Ingress's address from the kube32 Ingress controller.", "kubernetes.md"},
	{"TestExpandBytesMax", kib(TestExpandBytesMax), "KiB", "What one request, capture or assert of a kube32 test file becomes once its {{variables}} are expanded; past it the entry fails, naming file and line.", "testing.md"},
}

func ms(d time.Duration) int64   { return d.Milliseconds() }
func secs(d time.Duration) int64 { return int64(d / time.Second) }
func kib(n int64) int64          { return n >> 10 }

package abi

import "strconv"

// Functions is every host function of k32_app_abi, in the order in which
// docs/abi.md ("Host functions") lists them.
var Functions = []Function{
	{Name: "k32_log", Ext: true, Params: []Param{{"level", I32}, {"msg", Ptr}, {"len", U32}}, Results: []Type{I32},
		Doc: "One line of the pod's log (kubectl logs); level 0 debug, 1 info, 2 warn, 3 error."},
	{Name: "k32_env_get", Params: []Param{{"key", Ptr}, {"key_len", U32}, {"out", Ptr}, {"out_cap", U32}}, Results: []Type{I32},
		Doc: "The pod's environment: the container's env plus injected Service variables."},
	{Name: "k32_time_ms", Ext: true, Results: []Type{I64},
		Doc: "Wall clock, milliseconds since the Unix epoch."},
	{Name: "k32_sleep_ms", Ext: true, Params: []Param{{"ms", U32}}, Results: []Type{I32},
		Doc: "Sleeps; returns 0, or K32_ERR_INTR when the pod is being stopped."},
	{Name: "k32_random", Ext: true, Params: []Param{{"out", Ptr}, {"len", U32}}, Results: []Type{I32},
		Doc: "Fills out with cryptographic random bytes."},
	{Name: "k32_req_method", Ext: true, Params: []Param{{"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "The request method, inside k32_handle."},
	{Name: "k32_req_path", Ext: true, Params: []Param{{"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "The request path as received (escaped form), without the query."},
	{Name: "k32_req_query", Ext: true, Params: []Param{{"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "The raw query, without '?'; an empty string when there is none."},
	{Name: "k32_req_header", Ext: true, Params: []Param{{"name", Ptr}, {"name_len", U32}, {"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "A request header, matched case-insensitively; repeated headers joined with \", \"."},
	{Name: "k32_req_headers", Ext: true, Params: []Param{{"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "All request headers as \"Name: value\\r\\n\" lines."},
	{Name: "k32_req_read", Ext: true, Params: []Param{{"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "The next bytes of the request body; 0 at the end."},
	{Name: "k32_resp_status", Ext: true, Params: []Param{{"status", U32}}, Results: []Type{I32},
		Doc: "Sets the response status; K32_ERR_INVAL outside 100..599 or once the head is sent."},
	{Name: "k32_resp_header", Params: []Param{{"name", Ptr}, {"name_len", U32}, {"value", Ptr}, {"value_len", U32}}, Results: []Type{I32},
		Doc: "Queues a response header until the head is sent; K32_ERR_INVAL for an invalid name, a value with CR/LF, or a Set-Cookie of the web view's session cookie; K32_ERR_TOOBIG past " +
			strconv.Itoa(RespHeadersMax) + " headers or " + strconv.Itoa(RespHeaderBytesMax>>10) + " KiB of them."},
	{Name: "k32_resp_write", Ext: true, Params: []Param{{"data", Ptr}, {"len", U32}}, Results: []Type{I32},
		Doc: "Sends the head on first use, then body bytes; returns len, or K32_ERR_IO once the client has not taken the response in time (later writes too)."},
	{Name: "k32_resp_asset", Params: []Param{{"path", Ptr}, {"path_len", U32}, {"status", U32}}, Results: []Type{I32},
		Doc: "Streams a file of the pod's image bundle as the response; K32_ERR_NOENT sends nothing."},
	{Name: "k32_http_call", Capability: ServiceCall, Params: []Param{
		{"method", Ptr}, {"method_len", U32}, {"url", Ptr}, {"url_len", U32},
		{"headers", Ptr}, {"headers_len", U32}, {"body", Ptr}, {"body_len", U32},
		{"resp", Ptr}, {"resp_cap", U32}, {"resp_len", Ptr}, {"timeout_ms", U32}}, Results: []Type{I32},
		Doc: "Synchronous HTTP call to a Service or an outside host; returns the status or a K32_ERR_* code (K32_ERR_TOOBIG for a method, URL and headers over " +
			strconv.Itoa(CallHeadBytesMax>>10) + " KiB)."},
	{Name: "k32_http_status", Results: []Type{I32},
		Doc: "Status of the last k32_http_call (also after K32_ERR_TOOBIG)."},
	{Name: "k32_http_header", Ext: true, Params: []Param{{"name", Ptr}, {"name_len", U32}, {"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "A header of the last call's response."},
	{Name: "k32_publish", Ext: true, Capability: ChannelIPC, Params: []Param{{"topic", Ptr}, {"topic_len", U32}, {"data", Ptr}, {"data_len", U32}}, Results: []Type{I32},
		Doc: "Publishes a message on a channel topic, cluster-wide; K32_ERR_TOOBIG for data over " + strconv.Itoa(ChannelMessageMax>>10) + " KiB."},
	{Name: "k32_event_topic", Ext: true, Params: []Param{{"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "Inside k32_event: the message's topic."},
	{Name: "k32_event_data", Ext: true, Params: []Param{{"out", Ptr}, {"cap", U32}}, Results: []Type{I32},
		Doc: "Inside k32_event: the message's payload."},
}

// Lookup returns the host function named name.
func Lookup(name string) (Function, bool) {
	for _, f := range Functions {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// Exports is every export a pod module may offer.
var Exports = []Export{
	{Name: "_initialize", Doc: "WASI reactor start; called once first when present."},
	{Name: "k32_init", Ext: true, Results: []Type{I32}, Doc: "Optional; called once at pod start; non-zero fails the container start."},
	{Name: "k32_handle", Results: []Type{I32}, Doc: "One HTTP request (ingress, Service call, pod port)."},
	{Name: "k32_event", Results: []Type{I32}, Doc: "One channel message for a topic in " + AnnotationEventTopics + "."},
	{Name: "k32_main", Ext: true, Results: []Type{I32}, Doc: "Long-running pods; its return ends the container."},
	{Name: "_start", Doc: "Long-running WASI command; its return ends the container."},
}

// EntryExports are the exports of which a module must offer at least one.
var EntryExports = []string{"k32_handle", "k32_event", "k32_main", "_start"}

// LookupExport returns the export named name.
func LookupExport(name string) (Export, bool) {
	for _, e := range Exports {
		if e.Name == name {
			return e, true
		}
	}
	return Export{}, false
}

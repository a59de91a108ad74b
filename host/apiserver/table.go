package apiserver

//lint:file-ignore SA1019 kube32 serves core/v1 Endpoints, as the boards do (docs/kubectl.md), deprecated upstream since v1.33

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// wantsTable reports whether the client asked for a meta.k8s.io Table, as
// kubectl get does.
func wantsTable(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if strings.Contains(part, "as=Table") && strings.Contains(part, "g=meta.k8s.io") {
			return true
		}
	}
	return false
}

// includeObject is what each row carries: "None", "Object" or by default
// "Metadata".
func includeObject(r *http.Request) string {
	if v := r.URL.Query().Get("includeObject"); v != "" {
		return v
	}
	return "Metadata"
}

// printer is a kind's columns and the cells of one object, as
// kube-apiserver's printers make them.
type printer struct {
	columns []metav1.TableColumnDefinition
	cells   func(obj runtime.Object) []any
}

func col(name, typ, description string, priority int32) metav1.TableColumnDefinition {
	c := metav1.TableColumnDefinition{Name: name, Type: typ, Description: description, Priority: priority}
	if name == "Name" {
		c.Format = "name"
	}
	return c
}

var (
	nameCol = col("Name", "string", "Name must be unique within a namespace.", 0)
	ageCol  = col("Age", "string", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0)
)

// tableOptions is how a Table is printed: the row objects' form
// (includeObject), and whether it is one object's (a get or a watch
// event: the Table's resourceVersion is the object's) and carries the
// column definitions (left out of watch events after the first).
type tableOptions struct {
	include     string
	single      bool
	withColumns bool
}

// appendTable appends objs printed as a Table of res's columns, as
// json.Marshal writes a metav1.Table: cells from each kind's printer, row
// objects from the server's cached encodings.
func (s *Server) appendTable(b []byte, res *resource, objs []runtime.Object, version int64, opts tableOptions) ([]byte, error) {
	p := printerFor(res.Kind)
	b = append(b, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{`...)
	switch {
	case opts.single && len(objs) == 1:
		if rv := objs[0].(metav1.Object).GetResourceVersion(); rv != "" {
			b = append(b, `"resourceVersion":`...)
			b = appendJSONString(b, rv)
		}
	case version > 0:
		b = append(b, `"resourceVersion":"`...)
		b = strconv.AppendInt(b, version, 10)
		b = append(b, '"')
	}
	b = append(b, `},"columnDefinitions":`...)
	if opts.withColumns {
		b = append(b, columnsJSON(res.Kind, p)...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"rows":[`...)
	for i, o := range objs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"cells":[`...)
		for j, cell := range p.cells(o) {
			if j > 0 {
				b = append(b, ',')
			}
			if str, ok := cell.(string); ok {
				b = appendJSONString(b, str)
				continue
			}
			raw, err := json.Marshal(cell)
			if err != nil {
				return nil, err
			}
			b = append(b, raw...)
		}
		b = append(b, `],"object":`...)
		var raw []byte
		var err error
		switch opts.include {
		case "Object":
			raw, err = s.encodings.encode(res.Kind, o, formObject, !res.Computed)
		case "None":
			raw = []byte("null")
		default:
			raw, err = s.encodings.encode(res.Kind, o, formMetadata, !res.Computed)
		}
		if err != nil {
			return nil, err
		}
		b = append(b, raw...)
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// columns holds each kind's column definitions as JSON, encoded once.
var columns sync.Map // kind → []byte

func columnsJSON(kind string, p printer) []byte {
	if raw, ok := columns.Load(kind); ok {
		return raw.([]byte)
	}
	raw, _ := json.Marshal(p.columns)
	columns.Store(kind, raw)
	return raw
}

func age(o runtime.Object) string {
	ts := o.(metav1.Object).GetCreationTimestamp()
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}

func printerFor(kind string) printer {
	switch kind {
	case "Pod":
		return podPrinter
	case "Node":
		return nodePrinter
	case "Namespace":
		return printer{
			columns: []metav1.TableColumnDefinition{nameCol, col("Status", "string", "The status of the namespace", 0), ageCol},
			cells: func(o runtime.Object) []any {
				ns := o.(*corev1.Namespace)
				return []any{ns.Name, string(ns.Status.Phase), age(o)}
			},
		}
	case "Service":
		return servicePrinter
	case "Endpoints":
		return printer{
			columns: []metav1.TableColumnDefinition{nameCol, col("Endpoints", "string", "Endpoints of the service", 0), ageCol},
			cells: func(o runtime.Object) []any {
				return []any{o.(*corev1.Endpoints).Name, formatEndpoints(o.(*corev1.Endpoints)), age(o)}
			},
		}
	case "EndpointSlice":
		return printer{
			columns: []metav1.TableColumnDefinition{nameCol,
				col("AddressType", "string", "Type of address carried by this EndpointSlice.", 0),
				col("Ports", "string", "Ports allowed by this EndpointSlice.", 0),
				col("Endpoints", "string", "Endpoints in this EndpointSlice.", 0), ageCol},
			cells: func(o runtime.Object) []any {
				sl := o.(*discoveryv1.EndpointSlice)
				return []any{sl.Name, string(sl.AddressType), formatSlicePorts(sl.Ports), formatSliceEndpoints(sl.Endpoints), age(o)}
			},
		}
	case "Ingress":
		return printer{
			columns: []metav1.TableColumnDefinition{nameCol,
				col("Class", "string", "The name of the IngressClass resource that should be used for ingress.", 0),
				col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule", 0),
				col("Address", "string", "Address is a list containing ingress points for the load-balancer", 0),
				col("Ports", "string", "Ports of TLS configurations that open", 0), ageCol},
			cells: func(o runtime.Object) []any {
				ing := o.(*networkingv1.Ingress)
				class := "<none>"
				if ing.Spec.IngressClassName != nil {
					class = *ing.Spec.IngressClassName
				}
				ports := "80"
				if len(ing.Spec.TLS) > 0 {
					ports = "80, 443"
				}
				return []any{ing.Name, class, formatHosts(ing.Spec.Rules), ingressAddress(ing), ports, age(o)}
			},
		}
	case "NetworkPolicy":
		return printer{
			columns: []metav1.TableColumnDefinition{nameCol,
				col("Pod-Selector", "string", "Selects the pods to which this NetworkPolicy object applies.", 0), ageCol},
			cells: func(o runtime.Object) []any {
				np := o.(*networkingv1.NetworkPolicy)
				return []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), age(o)}
			},
		}
	case "Event":
		return eventPrinter
	case "Lease":
		return printer{
			columns: []metav1.TableColumnDefinition{nameCol,
				col("Holder", "string", "The holder of the lease", 0), ageCol},
			cells: func(o runtime.Object) []any {
				holder := "<unknown>"
				if h := o.(*coordinationv1.Lease).Spec.HolderIdentity; h != nil {
					holder = *h
				}
				return []any{o.(metav1.Object).GetName(), holder, age(o)}
			},
		}
	}
	return printer{
		columns: []metav1.TableColumnDefinition{nameCol, ageCol},
		cells:   func(o runtime.Object) []any { return []any{o.(metav1.Object).GetName(), age(o)} },
	}
}

var nodePrinter = printer{
	columns: []metav1.TableColumnDefinition{nameCol,
		col("Status", "string", "The status of the node", 0),
		col("Roles", "string", "The roles of the node", 0), ageCol,
		col("Version", "string", "Kubelet Version reported by the node.", 0),
		col("Internal-IP", "string", "List of addresses reachable to the node.", 1),
		col("External-IP", "string", "List of addresses reachable to the node.", 1),
		col("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
		col("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
		col("Container-Runtime", "string", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1)},
	cells: func(o runtime.Object) []any {
		n := o.(*corev1.Node)
		status := "Unknown"
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				status = "NotReady"
				if c.Status == corev1.ConditionTrue {
					status = "Ready"
				}
			}
		}
		if n.Spec.Unschedulable {
			status += ",SchedulingDisabled"
		}
		var roles []string
		for k := range n.Labels {
			if role, ok := strings.CutPrefix(k, abi.LabelNodeRolePrefix); ok && role != "" {
				roles = append(roles, role)
			}
		}
		sort.Strings(roles)
		rolesCell := "<none>"
		if len(roles) > 0 {
			rolesCell = strings.Join(roles, ",")
		}
		internal, external := "<none>", "<none>"
		for _, a := range n.Status.Addresses {
			switch a.Type {
			case corev1.NodeInternalIP:
				internal = a.Address
			case corev1.NodeExternalIP:
				external = a.Address
			}
		}
		osImage := n.Status.NodeInfo.OSImage
		if osImage == "" {
			osImage = "<unknown>"
		}
		kernel := n.Status.NodeInfo.KernelVersion
		if kernel == "" {
			kernel = "<unknown>"
		}
		return []any{n.Name, status, rolesCell, age(o), n.Status.NodeInfo.KubeletVersion, internal, external, osImage, kernel, n.Status.NodeInfo.ContainerRuntimeVersion}
	},
}

var servicePrinter = printer{
	columns: []metav1.TableColumnDefinition{nameCol,
		col("Type", "string", "Type determines how the Service is exposed.", 0),
		col("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly.", 0),
		col("External-IP", "string", "List of IP addresses for which nodes in the cluster will also accept traffic for this service.", 0),
		col("Port(s)", "string", "The list of ports that are exposed by this service.", 0), ageCol,
		col("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.", 1)},
	cells: func(o runtime.Object) []any {
		svc := o.(*corev1.Service)
		clusterIP := "<none>"
		if len(svc.Spec.ClusterIPs) > 0 {
			clusterIP = svc.Spec.ClusterIPs[0]
		} else if svc.Spec.ClusterIP != "" {
			clusterIP = svc.Spec.ClusterIP
		}
		external := "<none>"
		switch {
		case svc.Spec.Type == corev1.ServiceTypeExternalName:
			external = svc.Spec.ExternalName
		case len(svc.Spec.ExternalIPs) > 0:
			external = strings.Join(svc.Spec.ExternalIPs, ",")
		}
		var ports []string
		for _, p := range svc.Spec.Ports {
			proto := string(p.Protocol)
			if proto == "" {
				proto = "TCP"
			}
			if p.NodePort != 0 {
				ports = append(ports, fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, proto))
			} else {
				ports = append(ports, fmt.Sprintf("%d/%s", p.Port, proto))
			}
		}
		portCell := "<none>"
		if len(ports) > 0 {
			portCell = strings.Join(ports, ",")
		}
		selector := "<none>"
		if len(svc.Spec.Selector) > 0 {
			var parts []string
			for k, v := range svc.Spec.Selector {
				parts = append(parts, k+"="+v)
			}
			sort.Strings(parts)
			selector = strings.Join(parts, ",")
		}
		return []any{svc.Name, string(svc.Spec.Type), clusterIP, external, portCell, age(o), selector}
	},
}

var eventPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		col("Last Seen", "string", "Time when last event occurred", 0),
		col("Type", "string", "Type of this event", 0),
		col("Reason", "string", "Reason why this event was generated", 0),
		col("Object", "string", "Object this event is about", 0),
		col("Message", "string", "A human-readable description of the status of this operation.", 0)},
	cells: func(o runtime.Object) []any {
		e := o.(*corev1.Event)
		last := "<unknown>"
		if !e.LastTimestamp.IsZero() {
			last = duration.HumanDuration(time.Since(e.LastTimestamp.Time))
		}
		return []any{last, e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name, e.Message}
	},
}

// formatEndpoints prints up to three ready ip:port pairs, as kubectl
// shows Endpoints.
func formatEndpoints(ep *corev1.Endpoints) string {
	cell := firstFew{limit: 3}
	for _, ss := range ep.Subsets {
		for _, a := range ss.Addresses {
			if len(ss.Ports) == 0 {
				cell.add(a.IP)
			}
			for _, p := range ss.Ports {
				cell.add(fmt.Sprintf("%s:%d", a.IP, p.Port))
			}
		}
	}
	return cell.String("<none>")
}

func formatSlicePorts(ports []discoveryv1.EndpointPort) string {
	cell := firstFew{limit: 3}
	for _, p := range ports {
		if p.Port == nil {
			cell.add("<unset>")
		} else {
			cell.add(strconv.Itoa(int(*p.Port)))
		}
	}
	return cell.String("<unset>")
}

func formatSliceEndpoints(eps []discoveryv1.Endpoint) string {
	cell := firstFew{limit: 3}
	for _, e := range eps {
		for _, a := range e.Addresses {
			cell.add(a)
		}
	}
	return cell.String("<unset>")
}

func formatHosts(rules []networkingv1.IngressRule) string {
	cell := firstFew{limit: 4}
	for _, r := range rules {
		if r.Host == "" {
			cell.add("*")
		} else {
			cell.add(r.Host)
		}
	}
	return cell.String("*")
}

// firstFew is a table cell that lists the first limit items it is given
// and counts the rest, as kubectl prints "a,b,c + 2 more...".
type firstFew struct {
	limit int
	list  []string
	count int
}

func (c *firstFew) add(item string) {
	c.count++
	if len(c.list) < c.limit {
		c.list = append(c.list, item)
	}
}

// String is the cell, or none when nothing was added.
func (c *firstFew) String(none string) string {
	if c.count == 0 {
		return none
	}
	out := strings.Join(c.list, ",")
	if c.count > len(c.list) {
		out += fmt.Sprintf(" + %d more...", c.count-len(c.list))
	}
	return out
}

func ingressAddress(ing *networkingv1.Ingress) string {
	var list []string
	for _, lb := range ing.Status.LoadBalancer.Ingress {
		if lb.IP != "" {
			list = append(list, lb.IP)
		} else if lb.Hostname != "" {
			list = append(list, lb.Hostname)
		}
	}
	return strings.Join(list, ",")
}

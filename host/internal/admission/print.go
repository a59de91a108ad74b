package admission

//lint:file-ignore SA1019 kube32 serves core/v1 Endpoints, as the boards do (docs/kubectl.md), deprecated upstream since v1.33

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Printer is a kind's Table columns and the cells of one object, as
// kube-apiserver's printers make them.
type Printer struct {
	Columns []metav1.TableColumnDefinition
	Cells   func(obj runtime.Object) []any
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

func age(o runtime.Object) string {
	ts := o.(metav1.Object).GetCreationTimestamp()
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}

var namespacePrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol, col("Status", "string", "The status of the namespace", 0), ageCol},
	Cells: func(o runtime.Object) []any {
		ns := o.(*corev1.Namespace)
		return []any{ns.Name, string(ns.Status.Phase), age(o)}
	},
}

var endpointsPrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol, col("Endpoints", "string", "Endpoints of the service", 0), ageCol},
	Cells: func(o runtime.Object) []any {
		return []any{o.(*corev1.Endpoints).Name, formatEndpoints(o.(*corev1.Endpoints)), age(o)}
	},
}

var endpointSlicePrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol,
		col("AddressType", "string", "Type of address carried by this EndpointSlice.", 0),
		col("Ports", "string", "Ports allowed by this EndpointSlice.", 0),
		col("Endpoints", "string", "Endpoints in this EndpointSlice.", 0), ageCol},
	Cells: func(o runtime.Object) []any {
		sl := o.(*discoveryv1.EndpointSlice)
		return []any{sl.Name, string(sl.AddressType), formatSlicePorts(sl.Ports), formatSliceEndpoints(sl.Endpoints), age(o)}
	},
}

var ingressPrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol,
		col("Class", "string", "The name of the IngressClass resource that should be used for ingress.", 0),
		col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule", 0),
		col("Address", "string", "Address is a list containing ingress points for the load-balancer", 0),
		col("Ports", "string", "Ports of TLS configurations that open", 0), ageCol},
	Cells: func(o runtime.Object) []any {
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

var networkPolicyPrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol,
		col("Pod-Selector", "string", "Selects the pods to which this NetworkPolicy object applies.", 0), ageCol},
	Cells: func(o runtime.Object) []any {
		np := o.(*networkingv1.NetworkPolicy)
		return []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), age(o)}
	},
}

var leasePrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol,
		col("Holder", "string", "The holder of the lease", 0), ageCol},
	Cells: func(o runtime.Object) []any {
		holder := "<unknown>"
		if h := o.(*coordinationv1.Lease).Spec.HolderIdentity; h != nil {
			holder = *h
		}
		return []any{o.(metav1.Object).GetName(), holder, age(o)}
	},
}

// nameAgePrinter is kube-apiserver's default Table, for kinds without a
// printer of their own.
var nameAgePrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol, ageCol},
	Cells:   func(o runtime.Object) []any { return []any{o.(metav1.Object).GetName(), age(o)} },
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

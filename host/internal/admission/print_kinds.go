package admission

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kube32/kube32/abi"
)

// The printers of Nodes, Services and Events, as kube-apiserver's.

var nodePrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol,
		col("Status", "string", "The status of the node", 0),
		col("Roles", "string", "The roles of the node", 0), ageCol,
		col("Version", "string", "Kubelet Version reported by the node.", 0),
		col("Internal-IP", "string", "List of addresses reachable to the node.", 1),
		col("External-IP", "string", "List of addresses reachable to the node.", 1),
		col("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
		col("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
		col("Container-Runtime", "string", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1)},
	Cells: func(o runtime.Object) []any {
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

var servicePrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol,
		col("Type", "string", "Type determines how the Service is exposed.", 0),
		col("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly.", 0),
		col("External-IP", "string", "List of IP addresses for which nodes in the cluster will also accept traffic for this service.", 0),
		col("Port(s)", "string", "The list of ports that are exposed by this service.", 0), ageCol,
		col("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.", 1)},
	Cells: func(o runtime.Object) []any {
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

var eventPrinter = Printer{
	Columns: []metav1.TableColumnDefinition{
		col("Last Seen", "string", "Time when last event occurred", 0),
		col("Type", "string", "Type of this event", 0),
		col("Reason", "string", "Reason why this event was generated", 0),
		col("Object", "string", "Object this event is about", 0),
		col("Message", "string", "A human-readable description of the status of this operation.", 0)},
	Cells: func(o runtime.Object) []any {
		e := o.(*corev1.Event)
		last := "<unknown>"
		if !e.LastTimestamp.IsZero() {
			last = duration.HumanDuration(time.Since(e.LastTimestamp.Time))
		}
		return []any{last, e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name, e.Message}
	},
}

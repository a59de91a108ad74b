package cluster

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/admission"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// Applied is what one Apply did, each object as kubectl names it
// ("pod/echo").
type Applied struct {
	Created, Configured, Deleted []string
}

// Changed reports whether Apply wrote anything.
func (a Applied) Changed() bool {
	return len(a.Created)+len(a.Configured)+len(a.Deleted) > 0
}

// String is kubectl apply's report: "pod/echo configured, service/web created".
func (a Applied) String() string {
	var parts []string
	for _, n := range a.Created {
		parts = append(parts, n+" created")
	}
	for _, n := range a.Configured {
		parts = append(parts, n+" configured")
	}
	for _, n := range a.Deleted {
		parts = append(parts, n+" deleted")
	}
	return strings.Join(parts, ", ")
}

// ImagesChanged makes every node of this process bring the pods running
// one of refs onto the image trees' new contents (a new module restarts
// them; new assets only are served at once). Workers in this process
// read the same image trees.
func (c *Cluster) ImagesChanged(refs []string) {
	c.Kubelet.ImagesChanged(refs)
	for _, w := range c.workers() {
		w.Kubelet.ImagesChanged(refs)
	}
}

// BundlesChanged serves the named StaticBundles anew from the image trees
// and fires the reload event stream topic.
func (c *Cluster) BundlesChanged(names []string) error {
	return c.controller.BundlesChanged(names)
}

// Apply makes the objects the manifests hold those of objs, as `kubectl
// apply` of the same files would, with the objects dropped from them
// pruned: new ones are created, changed ones updated (their status and a
// Pod's binding kept), and those applied before, at Start or by an
// earlier Apply, that objs no longer holds are deleted (a bound Pod
// gracefully, through its node). Every object is admitted first: when one
// is refused, nothing is written and the error names it.
func (c *Cluster) Apply(objs []manifest.Object) (Applied, error) {
	admitted := make([]runtime.Object, len(objs))
	for i, o := range objs {
		obj := o.Obj.DeepCopyObject()
		markApplied(obj)
		if errs := admission.Admit(obj); len(errs) > 0 {
			who := o.Key()
			if o.File != "" {
				who = fmt.Sprintf("%s (document %d of %s)", who, o.Doc, o.File)
			}
			return Applied{}, fmt.Errorf("%s: %s", who, errs.ToAggregate())
		}
		admitted[i] = obj
	}
	c.manifestMu.Lock()
	defer c.manifestMu.Unlock()
	var done Applied
	keep := map[store.Key]bool{}
	for _, obj := range admitted {
		key := store.KeyOf(obj)
		keep[key] = true
		cur, ok := c.Store.Get(key)
		switch {
		case !ok:
			c.Store.Apply(recordServeWrite(nil, obj))
			done.Created = append(done.Created, kubectlName(key))
		case lastApplied(cur) != lastApplied(obj):
			keepServerFields(obj, cur)
			c.Store.Apply(recordServeWrite(cur, obj))
			done.Configured = append(done.Configured, kubectlName(key))
		}
	}
	for key := range c.manifests {
		if !keep[key] && c.deleteApplied(key) {
			done.Deleted = append(done.Deleted, kubectlName(key))
		}
	}
	c.manifests = keep
	return done, nil
}

// deleteApplied deletes an object Apply no longer finds in the manifests.
func (c *Cluster) deleteApplied(key store.Key) bool {
	if key.Kind == kinds.Pod {
		now := metav1.NewTime(time.Now())
		grace := int64(0)
		if _, ok := c.Store.Update(key, func(o runtime.Object) bool {
			p := o.(*corev1.Pod)
			if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
				return false
			}
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &now, &grace
			return true
		}); ok {
			return true
		}
	}
	return c.Store.Delete(key)
}

func lastApplied(obj runtime.Object) string {
	return obj.(metav1.Object).GetAnnotations()[corev1.LastAppliedConfigAnnotation]
}

// keepServerFields copies into obj what the cluster, not the manifest,
// wrote into cur: its status and a Pod's node.
func keepServerFields(obj, cur runtime.Object) {
	if status := reflect.ValueOf(cur).Elem().FieldByName("Status"); status.IsValid() {
		reflect.ValueOf(obj).Elem().FieldByName("Status").Set(status)
	}
	if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName == "" {
		p.Spec.NodeName = cur.(*corev1.Pod).Spec.NodeName
	}
}

// recordServeWrite gives obj the managedFields of serve's write over cur
// (nil: a create), as every write through the API has them; a kind the
// field manager cannot track keeps cur's (none for a create).
func recordServeWrite(cur, obj runtime.Object) runtime.Object {
	recorded, err := apiserver.RecordServeWrite(cur, obj)
	if err != nil {
		return obj
	}
	return recorded
}

// kubectlName is how kubectl names an object in its reports: "pod/echo".
func kubectlName(key store.Key) string {
	return strings.ToLower(key.Kind) + "/" + key.Name
}

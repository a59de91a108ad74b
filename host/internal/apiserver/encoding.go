package apiserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/store"
)

// An object's JSON is what costs in a list or a watch, and a stored object
// never changes once stored (every write stores a new one with a new
// resourceVersion), so its encodings are kept by key and resourceVersion
// and shared by every list and every watcher that sends it. The bytes are
// exactly json.Marshal's, so responses stay as encoding/json wrote them.

// form is which encoding of an object: the object itself, or its
// PartialObjectMetadata (a Table row's default object).
type form uint8

const (
	formObject form = iota
	formMetadata
)

type encodingKey struct {
	key     store.Key
	version string
	form    form
}

// encodingCache keeps the last few thousand encodings, first in first
// out, so objects that are gone or changed age out with no bookkeeping.
type encodingCache struct {
	mu   sync.Mutex
	byID map[encodingKey][]byte
	ring []encodingKey
	next int
}

// encodingCacheSize holds a few lists of a thousand objects and their
// Table rows.
const encodingCacheSize = 8192

func newEncodingCache() *encodingCache {
	return &encodingCache{byID: make(map[encodingKey][]byte, encodingCacheSize)}
}

// encode is obj's JSON in form; cached when obj is one of the store's
// (cacheable), whose resourceVersion names its content.
func (c *encodingCache) encode(kind string, obj runtime.Object, f form, cacheable bool) ([]byte, error) {
	if !cacheable {
		return encodeForm(obj, f)
	}
	m := obj.(metav1.Object)
	id := encodingKey{key: store.Key{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName()}, version: m.GetResourceVersion(), form: f}
	c.mu.Lock()
	raw, ok := c.byID[id]
	c.mu.Unlock()
	if ok {
		return raw, nil
	}
	raw, err := encodeForm(obj, f)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if _, ok := c.byID[id]; !ok {
		if len(c.ring) < encodingCacheSize {
			c.ring = append(c.ring, id)
		} else {
			delete(c.byID, c.ring[c.next])
			c.ring[c.next] = id
			c.next = (c.next + 1) % encodingCacheSize
		}
		c.byID[id] = raw
	}
	c.mu.Unlock()
	return raw, nil
}

const partialMetadataPrefix = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`

func encodeForm(obj runtime.Object, f form) ([]byte, error) {
	if f == formObject {
		return json.Marshal(obj)
	}
	// As json.Marshal(&metav1.PartialObjectMetadata{...}) writes it.
	meta, err := json.Marshal(objectMeta(obj))
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 0, len(partialMetadataPrefix)+len(meta)+1)
	raw = append(raw, partialMetadataPrefix...)
	raw = append(raw, meta...)
	return append(raw, '}'), nil
}

// objectMeta is obj's ObjectMeta, which every served kind embeds.
func objectMeta(obj runtime.Object) *metav1.ObjectMeta {
	return obj.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
}

// bufferPool holds response buffers, so a list reuses the memory of the
// lists before it.
var bufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// writeRaw answers body, JSON that ends in a newline as json.Encoder's.
func writeRaw(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// appendList is a resource's list object (e.g. a PodList) as
// json.Encoder writes a list, from the items' cached encodings.
func (s *Server) appendList(b []byte, res *resource, items []runtime.Object, version int64) ([]byte, error) {
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, res.Kind+"List")
	b = append(b, `,"apiVersion":`...)
	b = appendJSONString(b, res.apiVersion())
	b = append(b, `,"metadata":{"resourceVersion":"`...)
	b = strconv.AppendInt(b, version, 10)
	b = append(b, `"},"items":[`...)
	for i, o := range items {
		raw, err := s.encodings.encode(res.Kind, o, formObject, !res.Computed)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, raw...)
	}
	return append(b, "]}\n"...), nil
}

// appendJSONString appends s as encoding/json writes a string (HTML
// characters escaped), directly when no character needs escaping.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s)
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

package admission

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
)

// findBadQuantity finds the first resource quantity in a document that does
// not parse, because apimachinery's own error does not say which field it is.
func findBadQuantity(js []byte) (path, value string, ok bool) {
	var doc any
	if json.Unmarshal(js, &doc) != nil {
		return "", "", false
	}
	return walkQuantities(doc, "", false)
}

func walkQuantities(node any, path string, inResources bool) (string, string, bool) {
	switch n := node.(type) {
	case map[string]any:
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := k
			if path != "" {
				child = path + "." + k
			}
			if inResources || k == "divisor" { // a resourceFieldRef's divisor is a quantity too
				if s, isString := n[k].(string); isString {
					if _, err := resource.ParseQuantity(s); err != nil {
						return child, s, true
					}
				}
				continue
			}
			if p, v, ok := walkQuantities(n[k], child, k == "limits" || k == "requests"); ok {
				return p, v, ok
			}
		}
	case []any:
		for i, item := range n {
			if p, v, ok := walkQuantities(item, fmt.Sprintf("%s[%d]", path, i), false); ok {
				return p, v, ok
			}
		}
	}
	return "", "", false
}

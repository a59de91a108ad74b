package apptest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// variable is {{name}} in a URL, header, body, argument or value.
var variable = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}`)

// vars are a file's variables: ingress, and what its entries captured.
type vars map[string]string

// expand replaces each {{name}} in s; an unknown name is an error that
// lists the known ones.
func (v vars) expand(s string) (string, error) {
	var missing string
	out := variable.ReplaceAllStringFunc(s, func(m string) string {
		name := variable.FindStringSubmatch(m)[1]
		val, ok := v[name]
		if !ok && missing == "" {
			missing = name
		}
		return val
	})
	if missing != "" {
		var names []string
		for k := range v {
			names = append(names, k)
		}
		sort.Strings(names)
		return "", fmt.Errorf("unknown variable {{%s}} (known here: %s)", missing, strings.Join(names, ", "))
	}
	return out, nil
}

package apptest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/kube32/kube32/abi"
)

// variable is {{name}} in a URL, header, body, argument or value.
var variable = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}`)

// vars are a file's variables: ingress, and what its entries captured.
type vars map[string]string

// budget is what is left of abi.TestExpandBytesMax to the texts of one
// request, capture or assert as their variables are expanded.
type budget struct{ left int }

func newBudget() *budget { return &budget{left: abi.TestExpandBytesMax} }

// expand replaces each {{name}} in s; an unknown name is an error that
// lists the known ones. The length of the result is counted first,
// against b: past abi.TestExpandBytesMax the error names the variable that
// weighs most, and nothing is built (a file of half a megabyte that uses a
// captured body a hundred thousand times would make gigabytes).
func (v vars) expand(s string, b *budget) (string, error) {
	matches := variable.FindAllStringSubmatchIndex(s, -1)
	if len(matches) == 0 {
		return s, b.take(len(s), "", 0)
	}
	size := len(s)
	uses := map[string]int{} // by variable
	for _, m := range matches {
		name := s[m[2]:m[3]]
		val, ok := v[name]
		if !ok {
			return "", v.unknown(name)
		}
		size += len(val) - (m[1] - m[0])
		uses[name]++
	}
	heaviest := ""
	for name, n := range uses {
		w, most := n*len(v[name]), uses[heaviest]*len(v[heaviest])
		if heaviest == "" || w > most || (w == most && name < heaviest) {
			heaviest = name
		}
	}
	if err := b.take(size, heaviest, uses[heaviest]); err != nil {
		return "", err
	}
	var out strings.Builder
	out.Grow(size)
	last := 0
	for _, m := range matches {
		out.WriteString(s[last:m[0]])
		out.WriteString(v[s[m[2]:m[3]]])
		last = m[1]
	}
	out.WriteString(s[last:])
	return out.String(), nil
}

// take counts size bytes against the budget; past it the error names the
// variable that weighs most and how often it is used.
func (b *budget) take(size int, heaviest string, uses int) error {
	if size > b.left {
		what := "its text"
		if heaviest != "" {
			what = fmt.Sprintf("{{%s}} used %d times", heaviest, uses)
		}
		return fmt.Errorf("variables expanded make more than %d bytes (%s), over the limit of abi.TestExpandBytesMax for one request, capture or assert",
			abi.TestExpandBytesMax, what)
	}
	b.left -= size
	return nil
}

// unknown is the error of an unknown variable: it lists the known ones.
func (v vars) unknown(name string) error {
	var names []string
	for k := range v {
		names = append(names, k)
	}
	sort.Strings(names)
	return fmt.Errorf("unknown variable {{%s}} (known here: %s)", name, strings.Join(names, ", "))
}

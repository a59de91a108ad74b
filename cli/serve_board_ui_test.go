package cli_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestWebViewShowsBoardTime: the web view, open in headless Chromium on
// serve --board esp32 --slow-callback 50ms, shows the spin pod's board time
// (docs/ui.md): the p50 and p99 of its recent callbacks, as their answers'
// Server-Timing gave them, and marks the pod in red, with the count, once
// callbacks took more than --slow-callback on the board.
func TestWebViewShowsBoardTime(t *testing.T) {
	testenv.Tool(t, "chromium")
	const slowOver = 50 * time.Millisecond
	c := serveSpin(t, "--slow-callback", slowOver.String())
	page := openDevTools(t)
	page.call(t, "Page.navigate", map[string]any{"url": c.APIURL() + "/ui/"})

	// The cell as the page draws it: its text, its class and its count of
	// slow callbacks.
	const row = `document.querySelector('#pods tr[data-pod="default/spin"] td.boardtime')`
	figures := regexp.MustCompile(`^(?:(\d+) slow · )?([0-9.]+) / ([0-9.]+)$`) // in ms
	shows := func(what string, p50, p99 time.Duration, slow int) {
		t.Helper()
		testenv.EventuallyNil(t, "the web view to show "+what, func() error {
			got, err := page.evalErr(`(() => { const c = ` + row + `; return c ? JSON.stringify([c.textContent, c.className]) : "no cell"; })()`)
			if err != nil {
				return err
			}
			var cell [2]string
			if err := json.Unmarshal([]byte(got), &cell); err != nil {
				return fmt.Errorf("the board time cell: %s", got)
			}
			text, class := cell[0], cell[1]
			m := figures.FindStringSubmatch(text)
			if m == nil {
				return fmt.Errorf("the board time cell reads %q", text)
			}
			gotSlow, _ := strconv.Atoi(m[1]) // none without the mark
			got50, _ := strconv.ParseFloat(m[2], 64)
			got99, _ := strconv.ParseFloat(m[3], 64)
			marked := regexp.MustCompile(`\bbad\b`).MatchString(class)
			// Three significant digits on the page; Server-Timing leaves out
			// what a callback does after its answer's head, a few cycles.
			if !near(got50, ms(p50), 0.02) || !near(got99, ms(p99), 0.02) || gotSlow != slow || marked != (slow > 0) {
				return fmt.Errorf("the board time cell reads %q (class %q); want p50 %v, p99 %v, %d slow, marked %v", text, class, p50, p99, slow, slow > 0)
			}
			return nil
		})
	}

	// Quick callbacks: each the same work, so the same board time.
	var quick time.Duration
	for range 3 {
		quick, _ = spinOnce(t, c, 1000)
	}
	if quick <= 0 || quick >= slowOver {
		t.Fatalf("GET /?1000 took %v on the board: want some, under %v", quick, slowOver)
	}
	shows("the quick callbacks", quick, quick, 0)

	// As many slow ones: the p99 is theirs, and the pod is marked.
	var slow time.Duration
	for range 3 {
		slow, _ = spinOnce(t, c, 100_000)
	}
	if slow <= slowOver {
		t.Fatalf("GET /?100000 took %v on the board: want more than %v", slow, slowOver)
	}
	shows("the slow callbacks marked", quick, slow, 3)
	if title := page.eval(t, row+`.title`); !regexp.MustCompile(`^on esp32: .*6 callbacks, 3 over 50.0 ms`).MatchString(title) {
		t.Errorf("the board time cell's tooltip is %q, want the board, the callbacks and the slow ones over 50 ms", title)
	}
	if n := page.eval(t, `document.querySelector('#errors').dataset.count`); n != "0" {
		t.Errorf("the page counted %s errors: %s", n, page.eval(t, `document.querySelector('#errors').textContent`))
	}
}

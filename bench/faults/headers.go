package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// runHeaderFlood has both respflood pods queue 12,000 response headers of
// 64 KiB, then of 1 KiB, each in one k32_handle, at the same time, and
// reports what each answer carried (abi.RespHeadersMax and
// abi.RespHeaderBytesMax bound it) and the process's RSS before and after.
func runHeaderFlood(s *server) []row {
	const fault = "12,000 response headers on two pods"
	pods := s.respfloodPods()
	runtime.GC()
	before := rss()
	var rows []row
	for _, size := range []int{64 << 10, 1 << 10} {
		answers := make([]string, len(pods))
		var wg sync.WaitGroup
		start := time.Now()
		for i, p := range pods {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, body, err := getPod(p, fmt.Sprintf("/headers?12000,%d", size))
				answers[i] = fmt.Sprintf("%d %s", status, strings.TrimSpace(body))
				if err != nil {
					answers[i] = err.Error()
				}
			}()
		}
		wg.Wait()
		took := time.Since(start)
		rows = append(rows, row{fault, fmt.Sprintf("answer to 12000 × %d KiB (each pod)", size>>10),
			fmt.Sprintf("%s in %s", strings.Join(uniq(answers), " | "), took.Round(time.Millisecond))})
	}
	runtime.GC()
	after := rss()
	return append(rows, row{fault, "RSS before / after", fmt.Sprintf("%d / %d MB", before>>20, after>>20)})
}

// uniq drops repeated strings, keeping the first of each.
func uniq(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

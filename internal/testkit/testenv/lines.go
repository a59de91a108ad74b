package testenv

import (
	"fmt"
	"strings"
	"sync"
)

// Lines collects the lines that a server's or a node's goroutines log,
// safe for the test to read while they log.
type Lines struct {
	mu    sync.Mutex
	lines []string
}

// Add appends line.
func (l *Lines) Add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

// Logf appends the line format and args make, as a Logf option wants.
func (l *Lines) Logf(format string, args ...any) { l.Add(fmt.Sprintf(format, args...)) }

// All returns a copy of the lines so far.
func (l *Lines) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// String is the lines so far, one a line.
func (l *Lines) String() string { return strings.Join(l.All(), "\n") }

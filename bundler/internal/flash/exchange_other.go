//go:build !linux

package flash

// exchange is Linux's alone: elsewhere the switch takes two renames.
func exchange(a, b string) error { return errNoExchange }

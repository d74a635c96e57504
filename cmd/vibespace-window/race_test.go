//go:build race

package main_test

// Under -race the binary under test is built with -race too, so the daemon
// the integration tests drive is checked for data races as well.
func init() { buildFlags = append(buildFlags, "-race") }

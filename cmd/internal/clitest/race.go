//go:build race

package clitest

func init() { Race = true }

package atspi

//go:generate /usr/bin/python3 internal/gen/tables.py

import (
	"strconv"
	"strings"
)

// roleName is libatspi's name for role number r ("push button"), or
// "role <r>" for a number newer than this table.
func roleName(r uint32) string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "role " + strconv.FormatUint(uint64(r), 10)
}

// stateList names the bits set in an AT-SPI state set (GetState's two
// 32-bit words).
func stateList(words []uint32) []string {
	var out []string
	for w, bits := range words {
		for i := range 32 {
			if bits&(1<<i) == 0 {
				continue
			}
			n := w*32 + i
			if n < len(stateNames) {
				out = append(out, stateNames[n])
			} else {
				out = append(out, "state "+strconv.Itoa(n))
			}
		}
	}
	return out
}

// shortIface strips the AT-SPI prefix: "org.a11y.atspi.Action" → "Action".
func shortIface(s string) string { return strings.TrimPrefix(s, "org.a11y.atspi.") }

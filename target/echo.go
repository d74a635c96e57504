package target

import (
	"strconv"
	"unicode/utf8"
)

// EchoLimit is how many bytes of a caller's own input (a chord, a ref, a
// handle, a word) a refusal repeats back.
const EchoLimit = 64

// Clip is s cut to EchoLimit bytes (at a character's boundary) with
// "…(N bytes)" after it when it was longer: a refusal names what it was
// given without repeating a 40 KB argument back to the agent.
func Clip(s string) string { return ClipTo(s, EchoLimit) }

// ClipTo is s cut to limit bytes (at a character's boundary) with
// "…(N bytes)" after it when it was longer.
func ClipTo(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// Echo is s quoted as %q quotes it, cut as Clip cuts it: the form a
// refusal's message repeats the caller's input in.
func Echo(s string) string {
	if len(s) <= EchoLimit {
		return strconv.Quote(s)
	}
	c := Clip(s)
	i := len(c) - len("…(") - len(strconv.Itoa(len(s))) - len(" bytes)")
	return strconv.Quote(c[:i]) + c[i:]
}

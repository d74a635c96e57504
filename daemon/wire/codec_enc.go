//go:build !wirejson && !wirejsonenc

package wire

// The request half of the client's line, written out by hand (codec.go
// says why).

import (
	"strconv"
	"unicode/utf8"
)

// appendRequest appends req as json.Marshal encodes it.
func appendRequest(b []byte, r *Request) []byte {
	b = append(b, `{"verb":`...)
	b = appendString(b, r.Verb)
	b = append(b, `,"session":`...)
	b = appendString(b, r.Session)
	b = appendStr(b, "target", r.Target)
	b = appendStr(b, "ref", r.Ref)
	b = appendStr(b, "text", r.Text)
	b = appendStr(b, "chord", r.Chord)
	if r.At != nil {
		b = append(b, `,"at":{"x":`...)
		b = strconv.AppendInt(b, int64(r.At.X), 10)
		b = append(b, `,"y":`...)
		b = strconv.AppendInt(b, int64(r.At.Y), 10)
		b = append(b, '}')
	}
	b = appendStr(b, "dir", r.Dir)
	if r.By != 0 {
		b = append(b, `,"by":`...)
		b = strconv.AppendInt(b, int64(r.By), 10)
	}
	b = appendStr(b, "with", r.With)
	b = appendStrings(b, "argv", r.Argv)
	b = appendStr(b, "display", r.Display)
	b = appendTrue(b, "interactive", r.Interactive)
	b = appendTrue(b, "json", r.JSON)
	b = appendStr(b, "user", r.User)
	b = appendTrue(b, "force", r.Force)
	b = appendStr(b, "mode", r.Mode)
	b = appendTrue(b, "xpra", r.Xpra)
	b = appendStr(b, "host", r.Host)
	if r.Depth != 0 {
		b = append(b, `,"depth":`...)
		b = strconv.AppendInt(b, int64(r.Depth), 10)
	}
	b = appendTrue(b, "diff", r.Diff)
	b = appendStr(b, "after", r.After)
	b = appendStrings(b, "values", r.Values)
	b = appendTrue(b, "no_verify", r.NoVerify)
	if r.Steps != 0 {
		b = append(b, `,"steps":`...)
		b = strconv.AppendInt(b, int64(r.Steps), 10)
	}
	if r.Minutes != 0 {
		b = append(b, `,"minutes":`...)
		b = strconv.AppendInt(b, int64(r.Minutes), 10)
	}
	b = appendTrue(b, "reset", r.Reset)
	b = appendStr(b, "url", r.URL)
	b = appendStr(b, "profile", r.Profile)
	b = appendStr(b, "label", r.Label)
	b = appendStr(b, "alias", r.Alias)
	b = appendTrue(b, "none", r.None)
	b = appendStr(b, "action", r.Action)
	b = appendStr(b, "expr", r.Expr)
	b = appendStr(b, "selector", r.Selector)
	b = appendTrue(b, "headed", r.Headed)
	b = appendStr(b, "for", r.For)
	b = appendStr(b, "backend", r.Backend)
	b = appendStr(b, "size", r.Size)
	b = appendStr(b, "task", r.Task)
	if r.Last != 0 {
		b = append(b, `,"last":`...)
		b = strconv.AppendInt(b, int64(r.Last), 10)
	}
	b = appendStr(b, "provider", r.Provider)
	b = appendStr(b, "secret", r.Secret)
	b = appendStr(b, "endpoint", r.Endpoint)
	if e := r.Desktop; e != nil {
		b = append(b, `,"desktop":{`...)
		n := len(b)
		for _, f := range [...]struct{ key, v string }{{"display", e.Display}, {"xauthority", e.Xauthority}, {"bus", e.Bus}, {"wayland", e.Wayland}, {"runtime_dir", e.RuntimeDir}, {"session_type", e.SessionType}} {
			b = appendStr(b, f.key, f.v)
		}
		if len(b) > n {
			b = append(b[:n], b[n+1:]...) // the first field's comma
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendStr appends ,"key":"s" unless s is empty (omitempty).
func appendStr(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, s)
}

// appendStrings appends ,"key":["s",…] unless ss is empty (omitempty).
func appendStrings(b []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendTrue appends ,"key":true when v (omitempty).
func appendTrue(b []byte, key string, v bool) []byte {
	if !v {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, `":true`...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s quoted as encoding/json quotes it: HTML's <, >
// and & escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

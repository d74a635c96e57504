package wire

// The client's reading of an answer, written out by hand. encoding/json
// builds its decoder of a struct by reflection on first use in a process;
// a command line is a fresh process for one request, so it would pay that
// set-up (and the stack growth and page faults of it) on every call. On a
// fresh process (TestColdCodec, 100 of each interleaved, load average 2)
// the hand decoder saves 1.7 ms of a status answer (median; the least
// 1.2 ms), 1.3 ms of a click's (0.8–1.0 ms) and 0.8 ms of a snapshot's
// (0.4–0.55 ms). decodeResponse reads the answers the daemon writes and
// hands anything it does not expect to json.Unmarshal, so an answer
// always decodes as json.Unmarshal decodes it. Tests hold it to
// encoding/json, for every field of the structs.
//
// The request goes out through json.Marshal (requestLine): encoding it by
// hand saved 0.46 ms of a fresh process (median; the least 0.31 ms), under
// the 0.5 ms a call that earns hand-written code its place, and nothing a
// whole call showed beyond its noise.

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// decodeResponse decodes one answer line as json.Unmarshal does.
func decodeResponse(line []byte, resp *Response) error {
	var r Response
	if fastResponse(line, &r) {
		*resp = r
		return nil
	}
	return json.Unmarshal(line, resp)
}

// fastResponse decodes the answers the daemon writes: every key spelled as
// its field's tag, each at most once, no null, integers as integers.
// Facts, Snapshot, Effect, Bounds, Checks, PNG, Value, Trace, Keys, Batch, Reach and Capabilities are cut out
// and handed to json.Unmarshal each. It reports false on anything else
// (the caller then decodes the whole line with json.Unmarshal, which also
// says what is wrong with a line that is not JSON).
func fastResponse(line []byte, r *Response) bool {
	d := scan{b: line}
	ok := d.object(func(key string) bool {
		switch key {
		case "v":
			return d.int(&r.V)
		case "ok":
			return d.bool(&r.OK)
		case "code":
			return d.str((*string)(&r.Code))
		case "message":
			return d.str(&r.Message)
		case "target":
			r.Target = new(TargetInfo)
			return d.target(r.Target)
		case "note":
			return d.str(&r.Note)
		case "said":
			return d.bool(&r.Said)
		case "did":
			return d.str(&r.Did)
		case "by":
			return d.str((*string)(&r.By))
		case "targets":
			return d.array(func() bool {
				r.Targets = append(r.Targets, TargetInfo{})
				return d.target(&r.Targets[len(r.Targets)-1])
			}, func() { r.Targets = []TargetInfo{} })
		case "text":
			return d.str(&r.Text)
		case "status":
			r.Status = new(Status)
			return d.status(r.Status)
		case "url":
			return d.str(&r.URL)
		case "profile":
			r.Profile = new(ProfileInfo)
			return d.profile(r.Profile)
		case "profiles":
			return d.profiles(&r.Profiles)
		case "attachments":
			return d.profiles(&r.Attachments)
		case "facts":
			return d.reflect(&r.Facts)
		case "snapshot":
			return d.reflect(&r.Snapshot)
		case "effect":
			return d.reflect(&r.Effect)
		case "png":
			return d.reflect(&r.PNG)
		case "bounds":
			return d.reflect(&r.Bounds)
		case "checks":
			return d.reflect(&r.Checks)
		case "value":
			return d.reflect(&r.Value)
		case "cut":
			return d.reflect(&r.Cut)
		case "diff":
			return d.reflect(&r.Diff)
		case "found":
			return d.reflect(&r.Found)
		case "trace": // cut out too, like value
			return d.reflect(&r.Trace)
		case "keys":
			return d.reflect(&r.Keys)
		case "batch":
			return d.reflect(&r.Batch)
		case "reach":
			return d.reflect(&r.Reach)
		}
		return false
	})
	d.space()
	return ok && d.i == len(d.b)
}

func (d *scan) target(t *TargetInfo) bool {
	return d.object(func(key string) bool {
		switch key {
		case "id":
			return d.str((*string)(&t.ID))
		case "title":
			return d.str(&t.Title)
		case "app":
			return d.str(&t.App)
		case "pid":
			return d.int(&t.PID)
		case "origin":
			return d.str(&t.Origin)
		case "exposure":
			return d.array(func() bool {
				t.Exposure = append(t.Exposure, "")
				return d.str(&t.Exposure[len(t.Exposure)-1])
			}, func() { t.Exposure = []string{} })
		case "lease":
			return d.str(&t.Lease)
		case "input":
			return d.str(&t.Input)
		case "holder":
			return d.str(&t.Holder)
		case "since":
			return d.str(&t.Since)
		case "user":
			return d.str(&t.User)
		case "user_since":
			return d.str(&t.UserSince)
		case "capabilities":
			return d.reflect(&t.Capabilities)
		case "not_answering":
			return d.str(&t.NotAnswering)
		case "mode":
			return d.str((*string)(&t.Mode))
		case "mode_resolved":
			return d.str((*string)(&t.Resolved))
		case "mode_why":
			return d.str(&t.ModeWhy)
		case "watched":
			return d.str(&t.Watched)
		case "watchers":
			return d.int(&t.Watchers)
		case "watched_since":
			return d.str(&t.WatchedSince)
		case "desktop":
			return d.bool(&t.Desktop)
		case "pixels":
			return d.bool(&t.Pixels)
		case "browser":
			return d.str(&t.Browser)
		case "cdp_id":
			return d.str(&t.CDPID)
		}
		return false
	})
}

func (d *scan) profiles(ps *[]ProfileInfo) bool {
	return d.array(func() bool {
		*ps = append(*ps, ProfileInfo{})
		return d.profile(&(*ps)[len(*ps)-1])
	}, func() { *ps = []ProfileInfo{} })
}

func (d *scan) profile(p *ProfileInfo) bool {
	return d.object(func(key string) bool {
		switch key {
		case "id":
			return d.str(&p.ID)
		case "label":
			return d.str(&p.Label)
		case "handle":
			return d.str(&p.Handle)
		case "parent":
			return d.str(&p.Parent)
		case "default":
			return d.bool(&p.Default)
		case "pinned":
			return d.bool(&p.Pinned)
		case "ephemeral":
			return d.bool(&p.Ephemeral)
		case "attachments":
			return d.int(&p.Attachments)
		case "running":
			return d.bool(&p.Running)
		case "backend":
			return d.str(&p.Backend)
		case "provider":
			return d.str(&p.Provider)
		case "endpoint":
			return d.str(&p.Endpoint)
		case "window":
			return d.str((*string)(&p.Window))
		}
		return false
	})
}

func (d *scan) status(s *Status) bool {
	return d.object(func(key string) bool {
		switch key {
		case "pid":
			return d.int(&s.PID)
		case "socket":
			return d.str(&s.Socket)
		case "state_dir":
			return d.str(&s.StateDir)
		case "display":
			return d.str(&s.Display)
		case "targets":
			return d.int(&s.Targets)
		case "yours":
			return d.int(&s.Yours)
		case "started":
			return d.str(&s.Started)
		case "audit":
			return d.str(&s.AuditPath)
		case "max_request":
			return d.int(&s.MaxRequest)
		case "live":
			return d.str(&s.Live)
		case "kept":
			return d.array(func() bool {
				s.Kept = append(s.Kept, "")
				return d.str(&s.Kept[len(s.Kept)-1])
			}, func() { s.Kept = []string{} })
		case "stderr":
			return d.str(&s.Stderr)
		case "faults":
			return d.array(func() bool {
				s.Faults = append(s.Faults, "")
				return d.str(&s.Faults[len(s.Faults)-1])
			}, func() { s.Faults = []string{} })
		}
		return false
	})
}

// scan reads a JSON text strictly enough for fastResponse: every method
// reports false on what it does not take, never panics, and leaves the
// rest to json.Unmarshal.
type scan struct {
	b []byte
	i int
}

func (d *scan) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips space and reports whether the next byte is c, taking it.
func (d *scan) next(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object reads {"key": value, ...}: field reads each value; a key seen
// twice is not taken (json.Unmarshal would merge the two).
func (d *scan) object(field func(key string) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	var seen []string
	for {
		var key string
		if !d.str(&key) || !d.next(':') {
			return false
		}
		for _, k := range seen {
			if k == key {
				return false
			}
		}
		seen = append(seen, key)
		d.space()
		if !field(key) {
			return false
		}
		if d.next('}') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// array reads [elem, ...]; empty runs for [] (a non-nil empty slice, as
// json.Unmarshal leaves it).
func (d *scan) array(elem func() bool, empty func()) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		empty()
		return true
	}
	for {
		d.space()
		if !elem() {
			return false
		}
		if d.next(']') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

func (d *scan) bool(v *bool) bool {
	d.space()
	rest := d.b[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		*v, d.i = true, d.i+4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		*v, d.i = false, d.i+5
	default:
		return false
	}
	return true
}

// int reads an integer written as one: -?(0|[1-9][0-9]*).
func (d *scan) int(v *int) bool {
	d.space()
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || (d.b[digits] == '0' && d.i-digits > 1) {
		return false
	}
	if d.i < len(d.b) {
		if c := d.b[d.i]; c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	n, err := strconv.Atoi(string(d.b[start:d.i]))
	*v = n
	return err == nil
}

// str reads a string. It takes the escapes \" \\ \/ \b \f \n \r \t and
// \u of a rune that is not a surrogate; anything else (a surrogate pair,
// invalid UTF-8, a control character) is left to json.Unmarshal.
func (d *scan) str(v *string) bool {
	if !d.next('"') {
		return false
	}
	start := d.i
	var buf []byte // nil until the first escape
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			if buf == nil {
				*v = string(d.b[start:d.i])
			} else {
				*v = string(append(buf, d.b[start:d.i]...))
			}
			d.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			buf = append(buf, d.b[start:d.i]...)
			if d.i+1 >= len(d.b) {
				return false
			}
			e := d.b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				if d.i+4 > len(d.b) {
					return false
				}
				r, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 16)
				if err != nil || (r >= 0xd800 && r < 0xe000) {
					return false
				}
				buf = utf8.AppendRune(buf, rune(r))
				d.i += 4
			default:
				return false
			}
			start = d.i
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			d.i += size
		}
	}
	return false
}

// reflect cuts out one value and decodes it into v with json.Unmarshal.
func (d *scan) reflect(v any) bool {
	d.space()
	start := d.i
	if !d.skip(0) {
		return false
	}
	return json.Unmarshal(d.b[start:d.i], v) == nil
}

// skip passes over one value: strings and nesting exactly, the rest up to
// the next delimiter (json.Unmarshal then checks the value it is given).
func (d *scan) skip(depth int) bool {
	d.space()
	if d.i >= len(d.b) || depth > 10000 {
		return false
	}
	switch d.b[d.i] {
	case '"':
		start := d.i
		var s string
		if d.str(&s) {
			return true
		}
		d.i = start + 1
		return d.skipString()
	case '{', '[':
		closer := byte('}')
		if d.b[d.i] == '[' {
			closer = ']'
		}
		d.i++
		if d.next(closer) {
			return true
		}
		for {
			if closer == '}' {
				if !d.skip(depth+1) || !d.next(':') {
					return false
				}
			}
			if !d.skip(depth + 1) {
				return false
			}
			if d.next(closer) {
				return true
			}
			if !d.next(',') {
				return false
			}
		}
	}
	start := d.i
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return d.i > start
		}
		d.i++
	}
	return d.i > start
}

// skipString passes over the rest of a string that str does not take (a
// surrogate pair, say): up to the first unescaped quote.
func (d *scan) skipString() bool {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case '\\':
			d.i += 2
			continue
		case '"':
			d.i++
			return true
		}
		d.i++
	}
	return false
}

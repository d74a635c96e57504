package xpra

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/vibespace/vibespace/x11"
)

// Info is one `xpra info` answer, parsed: what the server says of itself,
// its clients and its windows. Reading it costs a Python process (0.2 s
// here, seconds under load): read it when asked, keep the value.
type Info struct {
	Version string // server.build.version ("3.1.3")
	PID     int    // server.pid
	Display string // server.display (":N")
	Clients int    // clients: attached clients
	Windows []Window
}

// Window is one window xpra manages.
type Window struct {
	WID      int // xpra's id (its _XPRA_WID property)
	XID      x11.WindowID
	PID      int
	Title    string
	Shown    bool // mapped by xpra: viewable, input delivered
	Geometry x11.Geometry
}

// Info asks the server about itself.
func (d *Display) Info(ctx context.Context) (Info, error) {
	out, err := d.srv.run(ctx, "info")
	if err != nil {
		return Info{}, err
	}
	return ParseInfo(out)
}

// ParseInfo parses `xpra info` output (key=value lines). A line that is
// not key=value is skipped; a window's fields that do not parse are an
// error naming the line.
func ParseInfo(out string) (Info, error) {
	var in Info
	wins := map[int]*Window{}
	var order []int
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		var err error
		switch {
		case k == "server.build.version":
			in.Version = v
		case k == "server.pid":
			in.PID, err = strconv.Atoi(v)
		case k == "server.display":
			in.Display = v
		case k == "clients":
			in.Clients, err = strconv.Atoi(v)
		case strings.HasPrefix(k, "windows."):
			rest := strings.TrimPrefix(k, "windows.")
			n, field, ok := strings.Cut(rest, ".")
			wid, aerr := strconv.Atoi(n)
			if !ok || aerr != nil {
				continue // windows.count and the like
			}
			w := wins[wid]
			if w == nil {
				w = &Window{WID: wid}
				wins[wid] = w
				order = append(order, wid)
			}
			err = w.set(field, v)
		}
		if err != nil {
			return Info{}, fmt.Errorf("xpra info: %q: %w", line, err)
		}
	}
	for _, wid := range order {
		in.Windows = append(in.Windows, *wins[wid])
	}
	return in, nil
}

func (w *Window) set(field, v string) error {
	var err error
	switch field {
	case "xid":
		var n uint64
		n, err = strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 32)
		w.XID = x11.WindowID(n)
	case "pid":
		w.PID, err = strconv.Atoi(v)
	case "title":
		w.Title = v
	case "shown":
		w.Shown = v == "True"
	case "geometry":
		var g [4]int
		g, err = tuple4(v)
		w.Geometry = x11.Geometry{X: g[0], Y: g[1], Width: g[2], Height: g[3]}
	}
	return err
}

// tuple4 parses a Python tuple of four ints: "(0, 0, 900, 700)".
func tuple4(v string) ([4]int, error) {
	var g [4]int
	parts := strings.Split(strings.Trim(v, "()[] "), ",")
	if len(parts) != 4 {
		return g, fmt.Errorf("not four numbers")
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return g, err
		}
		g[i] = n
	}
	return g, nil
}

// Version is the xpra on this machine ("3.1.3"), from `xpra --version`;
// an error says it is not installed or did not answer in time.
func Version(ctx context.Context) (string, error) {
	bin, err := exec.LookPath("xpra")
	if err != nil {
		return "", fmt.Errorf("xpra: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("xpra --version: %w", err)
	}
	// "xpra v3.1.3" (possibly after a warning line)
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "xpra v"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("xpra --version: unexpected answer %q", lastLines(string(out)))
}

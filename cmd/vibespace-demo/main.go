// Command vibespace-demo is the main job of the README: it drives a real GTK
// window end to end through the vibespace-window CLI and a real page through
// vibespace-browser, exactly as an agent would, prints each command with its
// answer, and prints the address of the live view (-hold keeps it all
// running until Ctrl-C, to watch and take over).
//
// It runs with a private state directory and runtime directory, so it never
// touches a daemon or display of yours, and it stops the daemon (and with it
// the display and the application) when it ends.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hold := flag.Bool("hold", false, "keep everything running after the demo until Ctrl-C, to watch it in the live view")
	flag.Parse()
	if err := run(ctx, os.Stdout, *hold); err != nil {
		fmt.Fprintln(os.Stderr, "demo failed:", err)
		stop()
		os.Exit(1)
	}
}

// demo holds the CLI's location and the private environment it runs in.
type demo struct {
	cli  string
	name string // the command as printed: vibespace-window or vibespace-browser
	env  []string
	out  io.Writer
	dir  string

	browserCLI string
}

// browser is the same demo speaking through vibespace-browser.
func (d *demo) browser() *demo {
	b := *d
	b.cli, b.name = d.browserCLI, "vibespace-browser"
	return &b
}

func run(ctx context.Context, out io.Writer, hold bool) error {
	cli, err := findCLI("vibespace-window")
	if err != nil {
		return err
	}
	browserCLI, err := findCLI("vibespace-browser")
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "vibespace-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, sub := range []string{"state", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return err
		}
	}
	d := &demo{cli: cli, name: "vibespace-window", browserCLI: browserCLI, out: out, dir: dir, env: append(os.Environ(),
		"VIBESPACE_HOME="+filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"),
		"VIBESPACE_SESSION=demo-agent",
	)}
	defer d.stopDaemon()

	fmt.Fprintln(out, "# vibespace demo: an agent drives a real GTK window through vibespace-window")
	fmt.Fprintln(out, "# (private daemon, display and state in a temp dir; everything is stopped at the end)")
	fmt.Fprintln(out)

	if _, err := d.show(ctx, "doctor"); err != nil {
		return err
	}
	if _, err := d.show(ctx, "open", "gtk3-widget-factory"); err != nil {
		return err
	}
	if _, err := d.show(ctx, "list"); err != nil {
		return err
	}
	const h = "win:1"
	snap, err := d.show(ctx, "snapshot", h, "--interactive")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "   … the agent reads %d lines of tree and picks its refs from them\n\n", strings.Count(snap, "\n"))

	page2 := refOf(snap, `radio button "Page 2"`)
	entry := refOf(snap, `text @`, "editable", "!disabled", "!focused")
	if page2 == "" || entry == "" {
		return fmt.Errorf("the snapshot lacks the Page 2 button or an enabled entry:\n%s", snap)
	}
	if _, err := d.show(ctx, "type", h, entry, "Hello from an agent, wörld €"); err != nil {
		return err
	}
	if _, err := d.show(ctx, "key", h, "ctrl+a"); err != nil {
		return err
	}
	if err := d.check(ctx, h, entry, func(line string) bool {
		return strings.Contains(line, "Hello from an agent, wörld €")
	}); err != nil {
		return err
	}
	// The point road: a click at a pixel of the window's own picture, then
	// text typed as keys into whatever took the focus.
	second := refOf(snap, `text @`, "editable", "!disabled", "!focused", "!"+entry+" ")
	at, ok := centreOf(snap, second)
	if second == "" || !ok {
		return fmt.Errorf("the snapshot lacks a second enabled entry with a geometry:\n%s", snap)
	}
	fmt.Fprintf(d.out, "# the point road: %s's centre in the window's own pixels is %s\n", second, at)
	if _, err := d.show(ctx, "click", h, "--at", at); err != nil {
		return err
	}
	if _, err := d.show(ctx, "type", h, "+typed as keys"); err != nil {
		return err
	}
	if err := d.check(ctx, h, second, func(line string) bool {
		return strings.Contains(line, "+typed as keys")
	}); err != nil {
		return err
	}
	if _, err := d.show(ctx, "click", h, page2); err != nil {
		return err
	}
	if err := d.check(ctx, h, page2, func(line string) bool {
		return strings.Contains(line, " checked")
	}); err != nil {
		return err
	}

	png := filepath.Join(d.dir, "widget-factory.png")
	if _, err := d.show(ctx, "screenshot", h, "--out", png); err != nil {
		return err
	}
	keep := "vibespace-demo.png"
	if b, err := os.ReadFile(png); err == nil {
		if err := os.WriteFile(keep, b, 0o644); err == nil {
			fmt.Fprintf(out, "   (kept a copy as ./%s: %d bytes)\n\n", keep, len(b))
		}
	}

	// A node with no Action is refused, never silently clicked at its centre.
	noAct := refOf(snap, `label "`)
	if noAct == "" {
		return fmt.Errorf("the snapshot lacks a label (a node without an Action):\n%s", snap)
	}
	fmt.Fprintf(out, "# a node without an Action is refused by code, not clicked by coordinates:\n")
	if _, err := d.show(ctx, "click", h, noAct); err == nil {
		return errors.New("a click on a node without an Action was not refused")
	}
	fmt.Fprintln(out, "# a person takes the window over; the agent is paused, then told once when it comes back:")
	// The operator words run as the person watching (their own session), not
	// as the paused agent: the agent cannot hand itself back. A session takes
	// over only what it sees, so the agent shares the window with them first.
	if _, err := d.show(ctx, "share", h, "--with", operator); err != nil {
		return err
	}
	if _, err := d.showAs(ctx, operator, "takeover", h); err != nil {
		return err
	}
	if _, err := d.show(ctx, "key", h, "Tab"); err == nil {
		return errors.New("an agent verb ran during a takeover")
	}
	if _, err := d.show(ctx, "handback", h); err == nil {
		return errors.New("the paused agent handed the window back to itself")
	}
	if _, err := d.showAs(ctx, operator, "handback", h); err != nil {
		return err
	}
	if _, err := d.show(ctx, "key", h, "Tab"); err != nil {
		return err
	}
	if err := d.browserPart(ctx); err != nil {
		return err
	}
	addr, err := d.livePart(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "# done: a window (open → snapshot → type @ref → key → click --at → type as keys → click @ref → screenshot → no_action → takeover/handback)")
	fmt.Fprintln(out, "# and a tab (open → snapshot -i → fill → click → the page's own report), all through the two CLIs.")
	fmt.Fprintf(out, "# live view: %s\n", addr)
	if !hold {
		fmt.Fprintln(out, "# (everything stops now; `make demo HOLD=1` keeps the daemon, the window and the tab running until Ctrl-C so you can watch and take over)")
		return nil
	}
	fmt.Fprintln(out, "# holding: open the address above in a browser on this machine; Ctrl-C ends the demo and stops everything.")
	<-ctx.Done()
	return nil
}

// check verifies the line of ref with ok in a fresh snapshot — the
// application's own tree. Keys typed through XTEST reach the application
// asynchronously (the verb answers once the X server has them, not once
// the application has drawn them), so a line not yet as expected is read
// again, as an agent would, for up to checkPatience.
func (d *demo) check(ctx context.Context, h, ref string, ok func(line string) bool) error {
	deadline := time.Now().Add(checkPatience)
	for reads := 1; ; reads++ {
		after, err := d.run(ctx, "snapshot", h, "--interactive")
		if err != nil {
			return err
		}
		line := lineOf(after, ref+" ")
		good := ok(line)
		if good || time.Now().After(deadline) {
			again := ""
			if reads > 1 {
				again = fmt.Sprintf(" (read %d times: the application had not yet handled every event)", reads)
			}
			fmt.Fprintf(d.out, "$ vibespace-window snapshot %s --interactive | grep %s   # the application's own tree says%s:\n  %s\n\n", h, ref, again, strings.TrimSpace(line))
			if !good {
				return fmt.Errorf("%s is not as expected after the verb (read %d times over %s): %q", ref, reads, checkPatience, line)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// checkPatience bounds how long check waits for the application to show a
// verb's effect.
const checkPatience = 5 * time.Second

// operator is the session the person watching runs the operator words as.
const operator = "operator"

// show runs one CLI command, printing it and its answer (refusals included).
func (d *demo) show(ctx context.Context, args ...string) (string, error) {
	return d.showAs(ctx, "", args...)
}

// showAs is show as session (the agent's when "").
func (d *demo) showAs(ctx context.Context, session string, args ...string) (string, error) {
	prefix := ""
	if session != "" {
		prefix = "VIBESPACE_SESSION=" + session + " "
	}
	fmt.Fprintf(d.out, "$ %s%s %s\n", prefix, d.name, quoteArgs(args))
	s, err := d.runAs(ctx, session, args...)
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		fmt.Fprintln(d.out, "  "+line)
	}
	fmt.Fprintln(d.out)
	return s, err
}

// run runs one CLI command and returns stdout and stderr together.
func (d *demo) run(ctx context.Context, args ...string) (string, error) {
	return d.runAs(ctx, "", args...)
}

// runAs is run as session (the agent's when "").
func (d *demo) runAs(ctx context.Context, session string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.cli, args...)
	cmd.Env = d.env
	if session != "" {
		cmd.Env = append(append([]string(nil), d.env...), "VIBESPACE_SESSION="+session)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%s %s: %w\n%s", d.name, quoteArgs(args), err, buf.String())
	}
	return buf.String(), err
}

// stopDaemon asks the daemon for its PID and ends it; its display, bus and
// application go with it.
func (d *demo) stopDaemon() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.cli, "--json", "status")
	cmd.Env = d.env
	b, err := cmd.Output()
	if err != nil {
		return
	}
	var st struct {
		Status struct {
			PID int `json:"pid"`
		} `json:"status"`
	}
	if json.Unmarshal(b, &st) != nil || st.Status.PID <= 1 {
		return
	}
	p, err := os.FindProcess(st.Status.PID)
	if err != nil {
		return
	}
	_ = p.Signal(syscall.SIGTERM)
	for i := 0; i < 200; i++ { // up to 10 s for the display to be torn down
		if p.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = p.Kill()
}

// findCLI looks for the command name next to this program, then on PATH.
func findCLI(name string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found next to the demo or on PATH (run make build)", name)
	}
	return p, nil
}

// refOf returns the ref of the first snapshot line containing every word
// (a word starting with "!" must be absent).
func refOf(snap string, words ...string) string {
next:
	for _, line := range strings.Split(snap, "\n") {
		for _, w := range words {
			if neg, ok := strings.CutPrefix(w, "!"); ok {
				if strings.Contains(line, neg) {
					continue next
				}
			} else if !strings.Contains(line, w) {
				continue next
			}
		}
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "@e") {
				return f
			}
		}
	}
	return ""
}

// centreOf returns the centre of ref's geometry (WxH+X+Y, screen pixels) as
// "x,y" in the pixels of the window, whose frame is the snapshot's first
// node with a geometry.
func centreOf(snap, ref string) (string, bool) {
	frame, ok1 := geometryOf(lineOf(snap, "frame "))
	g, ok2 := geometryOf(lineOf(snap, ref+" "))
	if !ok1 || !ok2 {
		return "", false
	}
	return fmt.Sprintf("%d,%d", g[2]-frame[2]+g[0]/2, g[3]-frame[3]+g[1]/2), true
}

// geometryOf finds the first WxH+X+Y field of a snapshot line.
func geometryOf(line string) ([4]int, bool) {
	for _, f := range strings.Fields(line) {
		var g [4]int
		if n, err := fmt.Sscanf(f, "%dx%d+%d+%d", &g[0], &g[1], &g[2], &g[3]); err == nil && n == 4 {
			return g, true
		}
	}
	return [4]int{}, false
}

// lineOf returns the first line containing s.
func lineOf(text, s string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$&<>|;*?") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

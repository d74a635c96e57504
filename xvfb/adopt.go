package xvfb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/x11"
)

// State is what a process must persist to find a Detach'ed desktop again
// after it was restarted (or killed).
type State struct {
	ID          string `json:"id"`
	Dir         string `json:"dir"`
	Display     string `json:"display"`
	BusAddress  string `json:"bus_address"`
	A11yAddress string `json:"a11y_address"`
	A11ySwitch  string `json:"a11y_switch,omitempty"`
	// ServerPID and ServerName are the desktop's server process (its X
	// server, or the xpra that manages it): a desktop adopted from them is
	// watched for its end (server.go). A record without them (an earlier
	// version's) is adopted unwatched.
	ServerPID  int    `json:"server_pid,omitempty"`
	ServerName string `json:"server_name,omitempty"`
}

// State returns the facts Adopt needs.
func (d *Desktop) State() State {
	st := State{ID: d.ID, Dir: d.Dir, Display: d.Display, BusAddress: d.BusAddress, A11yAddress: d.A11yAddress, A11ySwitch: d.A11ySwitch}
	d.mu.Lock()
	if d.server != nil {
		st.ServerPID, st.ServerName = d.server.pid, d.server.name
	}
	d.mu.Unlock()
	return st
}

// Adopt takes over a desktop started by an earlier process (with Detach).
// It checks that the X server and the session bus still answer; if they do
// not, it tears down whatever is left of it and returns an error. Apps the
// earlier process launched keep running but are not App values here: Close
// still ends them (they carry the desktop's marker).
func Adopt(ctx context.Context, s State, o Options) (*Desktop, error) {
	if s.ID == "" || s.Dir == "" || filepath.Base(s.Dir) == "/" {
		return nil, fmt.Errorf("xvfb: adopt: incomplete state %+v", s)
	}
	d := &Desktop{
		Display: s.Display, BusAddress: s.BusAddress, A11yAddress: s.A11yAddress, A11ySwitch: s.A11ySwitch,
		Dir: s.Dir, ID: s.ID, opts: o,
		RuntimeDir: filepath.Join(s.Dir, "run"), ConfigDir: filepath.Join(s.Dir, "config"),
	}
	if err := d.Alive(ctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("xvfb: adopt desktop %s: %w", s.ID, err)
	}
	// A desktop of an earlier version has no temp dir of its own yet.
	if err := os.MkdirAll(filepath.Join(s.Dir, "tmp"), 0o700); err != nil {
		d.Close()
		return nil, fmt.Errorf("xvfb: adopt desktop %s: %w", s.ID, err)
	}
	name, pid := s.ServerName, s.ServerPID
	if pid == 0 {
		name, pid = findServer(s.ID) // a record of an earlier version
	}
	d.watchServer(name, pid)
	return d, nil
}

// Alive checks that the desktop's X server and session bus answer.
func (d *Desktop) Alive(ctx context.Context) error {
	if _, err := os.Stat(d.Dir); err != nil {
		return err
	}
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		return err
	}
	disp.Close()
	conn, err := dbus.Connect(d.BusAddress, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("session bus: %w", err)
	}
	conn.Close()
	return nil
}

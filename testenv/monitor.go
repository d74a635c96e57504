package testenv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/godbus/dbus/v5"
)

// Monitor is a stack's virtual monitor: its size in pixels and its scale
// (0 or 1: none). A scale is set once the compositor is up, through
// mutter's own org.gnome.Mutter.DisplayConfig (ApplyMonitorsConfig,
// temporary), so only on mutter and GNOME Shell. Mutter offers a scale
// only where the monitor stays at least 800×480 logical pixels (1280×720
// offers 1 alone: 2 needs 1600×960 or more), and a fractional one only
// with its experimental feature scale-monitor-framebuffer, which the
// stack then sets in a GSettings keyfile of its own (the memory backend
// every other stack uses cannot be written before the shell reads it).
type Monitor struct {
	Width, Height int
	Scale         float64
}

func (m Monitor) withDefaults() Monitor {
	if m.Width == 0 || m.Height == 0 {
		m.Width, m.Height = WaylandWidth, WaylandHeight
	}
	if m.Scale == 0 {
		m.Scale = 1
	}
	return m
}

func (m Monitor) String() string {
	if m.Scale == 1 {
		return m.size()
	}
	return fmt.Sprintf("%s at scale %g", m.size(), m.Scale)
}

// size is the monitor's size as mutter's --virtual-monitor takes it.
func (m Monitor) size() string { return fmt.Sprintf("%dx%d", m.Width, m.Height) }

// fractional reports whether the scale is not a whole number.
func (m Monitor) fractional() bool { return m.Scale != math.Trunc(m.Scale) }

// settings is the stack's GSETTINGS_BACKEND: a keyfile (scaleKeyfile) for
// a fractional scale, memory otherwise.
func (m Monitor) settings() string {
	if m.fractional() {
		return "keyfile"
	}
	return "memory"
}

// scaleKeyfile is GLib's keyfile backend's file under XDG_CONFIG_HOME,
// with mutter's fractional scaling turned on.
const scaleKeyfile = "[org/gnome/mutter]\nexperimental-features=['scale-monitor-framebuffer']\n"

// writeSettings writes the keyfile a fractional scale needs (nothing
// otherwise), before any process of the stack starts.
func (w *Wayland) writeSettings() error {
	if !w.mon.fractional() {
		return nil
	}
	dir := filepath.Join(w.dir, "config", "glib-2.0", "settings")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "keyfile"), []byte(scaleKeyfile), 0o600)
}

const displayConfig = "org.gnome.Mutter.DisplayConfig"

// displayState is the part of DisplayConfig.GetCurrentState a scale needs:
// the state's serial, and for each monitor its connector, its current
// mode's id and the scales that mode offers, and the logical monitors'
// scales.
type displayState struct {
	serial  uint32
	monitor []monitorState
	scales  []float64 // each logical monitor's
}

type monitorState struct {
	connector string
	mode      string
	offered   []float64
}

// readDisplayState calls GetCurrentState and reads what displayState
// keeps from its answer (u a((ssss)a(siiddada{sv})a{sv})
// a(iiduba(ssss)a{sv}) a{sv}).
func readDisplayState(ctx context.Context, obj dbus.BusObject) (displayState, error) {
	var st displayState
	var monitors []struct {
		Spec  struct{ Connector, Vendor, Product, Serial string }
		Modes []struct {
			ID                      string
			Width, Height           int32
			Refresh, PreferredScale float64
			Scales                  []float64
			Props                   map[string]dbus.Variant
		}
		Props map[string]dbus.Variant
	}
	var logical []struct {
		X, Y      int32
		Scale     float64
		Transform uint32
		Primary   bool
		Monitors  []struct{ Connector, Vendor, Product, Serial string }
		Props     map[string]dbus.Variant
	}
	var props map[string]dbus.Variant
	if err := obj.CallWithContext(ctx, displayConfig+".GetCurrentState", 0).Store(&st.serial, &monitors, &logical, &props); err != nil {
		return st, fmt.Errorf("testenv: DisplayConfig.GetCurrentState: %w", err)
	}
	for _, m := range monitors {
		ms := monitorState{connector: m.Spec.Connector}
		for _, md := range m.Modes {
			if cur, _ := md.Props["is-current"].Value().(bool); cur {
				ms.mode, ms.offered = md.ID, md.Scales
			}
		}
		st.monitor = append(st.monitor, ms)
	}
	for _, l := range logical {
		st.scales = append(st.scales, l.Scale)
	}
	return st, nil
}

// scale sets the monitor's scale (nothing for 1): refused, saying what
// mutter offers, when the monitor's mode does not offer it.
func (w *Wayland) scale(ctx context.Context, conn *dbus.Conn) error {
	if w.mon.Scale == 1 {
		return nil
	}
	if w.shell == KWin {
		return errors.New("testenv: a monitor's scale is set through mutter's DisplayConfig: not on KWin")
	}
	obj := conn.Object(displayConfig, "/org/gnome/Mutter/DisplayConfig")
	st, err := readDisplayState(ctx, obj)
	if err != nil {
		return err
	}
	if len(st.monitor) != 1 || st.monitor[0].mode == "" {
		return fmt.Errorf("testenv: %d monitors (%+v): want the one virtual monitor", len(st.monitor), st.monitor)
	}
	m := st.monitor[0]
	// Mutter offers fractional scales as the nearest it can hold whole
	// (1.25 of 2560×1440 is 1.25 exactly; of another size 1.2503…).
	i := slices.IndexFunc(m.offered, func(s float64) bool { return math.Abs(s-w.mon.Scale) < 0.01 })
	if i < 0 {
		return fmt.Errorf("testenv: mutter offers scales %v for %s's mode %s, not %g", m.offered, m.connector, m.mode, w.mon.Scale)
	}
	type monitorConfig struct {
		Connector, Mode string
		Props           map[string]dbus.Variant
	}
	type logicalConfig struct {
		X, Y      int32
		Scale     float64
		Transform uint32
		Primary   bool
		Monitors  []monitorConfig
	}
	cfg := []logicalConfig{{Scale: m.offered[i], Primary: true, Monitors: []monitorConfig{{m.connector, m.mode, map[string]dbus.Variant{}}}}}
	const temporary = 1
	if err := obj.CallWithContext(ctx, displayConfig+".ApplyMonitorsConfig", 0, st.serial, uint32(temporary), cfg, map[string]dbus.Variant{}).Err; err != nil {
		return fmt.Errorf("testenv: DisplayConfig.ApplyMonitorsConfig at scale %g: %w", m.offered[i], err)
	}
	return w.poll(ctx, w.shell.spec().name, fmt.Sprintf("the monitor at scale %g", m.offered[i]), func() bool {
		now, err := readDisplayState(ctx, obj)
		return err == nil && len(now.scales) == 1 && now.scales[0] == m.offered[i]
	})
}

package xvfb_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/xvfb"
)

// TestServerEnd: a desktop's X server killed with -9 is seen ending, with
// how (our child: its wait status), and by a process that adopted the
// desktop from a record — with its PID, or (an earlier version's record)
// without, found among the desktop's processes — through a pidfd.
func TestServerEnd(t *testing.T) {
	testenv.NeedIntegration(t)
	for _, c := range []struct {
		name  string
		adopt bool
		noPID bool
	}{{"ours", false, false}, {"adopted", true, false}, {"adopted from an old record", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			d, err := xvfb.Start(ctx, xvfb.Options{Width: 640, Height: 480, Detach: true})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			st := d.State()
			if st.ServerName != "Xvfb" || st.ServerPID <= 0 {
				t.Fatalf("the record does not name the X server: %+v", st)
			}
			x := st.ServerPID
			w := d
			if c.adopt {
				if c.noPID {
					st.ServerPID, st.ServerName = 0, ""
				}
				a, err := xvfb.Adopt(ctx, st, xvfb.Options{Detach: true})
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				w = a
			}
			gone := w.ServerGone()
			if gone == nil {
				t.Fatal("the server is not watched")
			}
			if _, ended := w.ServerEnd(); ended {
				t.Fatal("ended while it runs")
			}
			if err := syscall.Kill(x, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			select {
			case <-gone:
			case <-ctx.Done():
				t.Fatal("the server's end was never seen")
			}
			end, ok := w.ServerEnd()
			if !ok || end.PID != x || end.Name != "Xvfb" || end.At.IsZero() {
				t.Fatalf("ServerEnd: %+v %v", end, ok)
			}
			if !c.adopt && end.How != "killed by signal 9 (SIGKILL)" {
				t.Fatalf("how our child ended: %q", end.How)
			}
			if c.adopt && !strings.Contains(end.How, "not how") {
				t.Fatalf("how an adopted server ended: %q", end.How)
			}
		})
	}
}

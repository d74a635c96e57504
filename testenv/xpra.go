package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/xpra"
)

// NewXpra starts a seamless Xpra display (package xpra) for t alone, with
// its buses, and closes it when t ends; Main's leak check covers it as it
// does a Desktop.
func NewXpra(t testing.TB, o xpra.Options) *xpra.Display {
	t.Helper()
	NeedIntegration(t, "xpra")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	d, err := xpra.Start(ctx, o)
	if err != nil {
		t.Fatalf("testenv: xpra: %v", err)
	}
	track(d.Desktop)
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("testenv: close xpra: %v", err)
		}
	})
	return d
}

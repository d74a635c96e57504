package native

import (
	"context"

	"github.com/vibespace/vibespace/daemon/kind"
)

var _ kind.Selector = (*window)(nil)

// Select makes opts the chosen options of the choice control n — a combo
// box's items, a list box's or tree view's rows, a notebook's page tabs
// (n the tab list or one of its tabs) — through AT-SPI's Selection, and
// answers the options chosen afterwards, read back from the application
// (atspi.Bus.Select). An option the control does not have is refused
// no_option, naming the ones it has.
func (w *window) Select(ctx context.Context, n kind.Node, opts []string) ([]string, error) {
	o, err := w.object(n)
	if err != nil {
		return nil, err
	}
	return w.d.bus.Select(ctx, o, opts)
}

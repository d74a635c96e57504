package native

import (
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// TestTellEvents: a window says its application's events as changes of
// the nodes its last snapshot held: a label's text replaced (GTK 3 sends
// the old text deleted, then the new inserted) with its text before and
// after, a name told twice as its first old and last new, the focus; a
// child added to a node it did not hold (the application's root gaining a
// dialog) is left out.
func TestTellEvents(t *testing.T) {
	obj := func(p string) atspi.Object { return atspi.Object{Name: ":1.5", Path: dbus.ObjectPath(p)} }
	w := &window{}
	w.remember(&target.Snapshot{Root: &target.Node{Key: obj("/f").Key(), Role: "frame", Children: []*target.Node{
		{Ref: "@e2", Key: obj("/label").Key(), Role: "label", Name: "1", Text: "1", TextLen: 1},
		{Ref: "@e3", Key: obj("/display").Key(), Role: "label", Name: ""},
		{Ref: "@e4", Key: obj("/ok").Key(), Role: "push button", Name: "OK"},
	}}})
	evs := []atspi.Event{
		{Object: obj("/label"), Kind: "text-changed:delete", Detail1: 0, Detail2: 1, Data: "1"},
		{Object: obj("/label"), Kind: "text-changed:insert", Detail1: 0, Detail2: 2, Data: "12"},
		{Object: obj("/display"), Kind: "property-change:accessible-name", Data: "7"},
		{Object: obj("/display"), Kind: "property-change:accessible-name", Data: "78"},
		{Object: obj("/ok"), Kind: "state-changed:focused", Detail1: 1},
		{Object: obj("/root"), Kind: "children-changed:add", Child: obj("/dialog")},
	}
	got := w.tell(evs)
	want := []kind.Change{
		{Key: obj("/label").Key(), Ref: "@e2", Role: "label", Name: "1", What: "text", From: "1", To: "12", Known: true},
		{Key: obj("/display").Key(), Ref: "@e3", Role: "label", What: "name", From: "", To: "78", Known: true},
		{Key: obj("/ok").Key(), Ref: "@e4", Role: "push button", Name: "OK", What: "focused"},
	}
	if len(got) != len(want) {
		t.Fatalf("told %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// What the events told is known from then on: the next change of the
	// label's text starts from "12".
	next := w.tell([]atspi.Event{{Object: obj("/label"), Kind: "text-changed:insert", Detail1: 2, Detail2: 1, Data: "3"}})
	if len(next) != 1 || next[0].From != "12" || next[0].To != "123" || !next[0].Known {
		t.Fatalf("the next change: %+v", next)
	}
}

package atspi_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/testenv"
)

// walkBudget is what one walk of a settled window of a fixture costs in
// D-Bus calls, by kind (the method; for Properties.Get the property read,
// for Properties.GetAll its interface): the calls made once the application's toolkit is known (a Bus
// asks it once per application, two calls, on its first walk).
type walkBudget struct {
	nodes int
	total int
	kinds map[string]int
	// depth is the walk's depth in round trips (atspi.WithDepth), and
	// firstDepth the same walk's without what the last walk of the window
	// asked (a first walk's: every node's phase two waits for its phase
	// one). Before the root's GetChildren went with its first questions
	// and phase two early (early.go): gtk3 11, gtk4 6, qt5 3 (both);
	// before GetChildren, phase one and phase two were asked ahead of the
	// objects the last walk asked them of (ahead.go): gtk3 9, gtk4 5,
	// qt5 2 (with GetChildren and phase one ahead, not yet the phase two
	// of the nodes the cache holds: gtk3 3, gtk4 3, qt5 1).
	depth, firstDepth int
}

// The budgets. A change that asks the application one more question per
// node changes a number here: it is seen, and said in its commit.
var walkBudgets = map[string]walkBudget{
	// The GTK 3 fixture (at-spi2-atk): Cache.GetItems (1) holds 21 of its
	// 142 nodes (not the 60 rows of its list box, which manages its
	// descendants, nor their labels); each of the other 121 is asked
	// GetRole, GetState, GetInterfaces and one GetAll (name, description,
	// child count); GetChildren only of the nodes that have children (68);
	// then the showing ones their extents, the actionable their actions,
	// the texts their length and the text itself, the one unnamed drawn
	// control its relations, the one range its values (one GetAll).
	// Before: 924 (Name and Description asked apart, 121 each; GetChildren
	// of all 142 nodes; the range's values in three calls).
	"gtk3": {nodes: 142, total: 727, depth: 2, firstDepth: 10, kinds: map[string]int{
		"GetItems": 1, "GetRole": 121, "GetState": 121, "GetInterfaces": 121, "GetAll Accessible": 121,
		"GetChildren": 68, "GetExtents": 39, "GetActions": 8, "Get CharacterCount": 64, "GetText": 61,
		"GetRelationSet": 1, "GetAll Value": 1,
	}},
	// The GTK 4 fixture: Cache.GetItems (1) holds every node but the
	// window (asked its 4 questions); GetChildren of the 4 nodes that have
	// children; every node GetActions and GetExtents (GTK 4 says showing
	// of windows only: its visible nodes are asked); three texts, two of
	// them not empty; GetRelationSet of the two unnamed nodes (every GTK 4
	// node has an Action): the box, and the check box's indicator, which
	// GTK 4.8 names by its class ("GtkBuiltinIcon") — no name, so asked
	// what labels it like any unnamed node (issue 38: 31 -> 32). Before:
	// 36 (GetChildren of all 8; the window's Name and Description apart).
	"gtk4": {nodes: 8, total: 32, depth: 2, firstDepth: 5, kinds: map[string]int{
		"GetItems": 1, "GetRole": 1, "GetState": 1, "GetInterfaces": 1, "GetAll Accessible": 1,
		"GetChildren": 4, "GetExtents": 8, "GetActions": 8, "Get CharacterCount": 3, "GetText": 2,
		"GetRelationSet": 2,
	}},
	// The Qt 5 fixture: Qt's Cache.GetItems is a stub (not asked) and
	// GetAll crashes it (QTBUG-107897): every node its 5 questions and
	// GetChildren, its extents and actions; one text, empty.
	"qt5": {nodes: 4, total: 33, depth: 1, firstDepth: 3, kinds: map[string]int{
		"GetRole": 4, "GetState": 4, "GetInterfaces": 4, "Get Name": 4, "Get Description": 4,
		"GetChildren": 4, "GetExtents": 4, "GetActions": 4, "Get CharacterCount": 1,
	}},
}

// TestWalkRoundTrips counts the D-Bus calls one walk of a window makes, on
// the GTK 3, GTK 4 and Qt 5 fixtures, and the round trips deep it goes
// (with and without the last walk's memory), and holds them to
// walkBudgets. The
// calls are counted by a monitor of the accessibility bus (BecomeMonitor:
// what the bus daemon carried from the walk's connection, not what the
// walk thinks it sent), the walk going through the bus (Options.NoPeer);
// the same walk through the application's peer socket makes as many calls
// (Options.Calls, the count the daemon's budgets read).
func TestWalkRoundTrips(t *testing.T) {
	d := testenv.SharedDesktop(t)
	fixtures := []struct {
		name  string
		start func(t *testing.T) *testenv.Fixture
	}{
		{"gtk3", func(t *testing.T) *testenv.Fixture { return fixture(t, d) }},
		{"gtk4", func(t *testing.T) *testenv.Fixture { return toolkitFixtures[1].start(t, d) }},
		{"qt5", func(t *testing.T) *testenv.Fixture { return toolkitFixtures[0].start(t, d) }},
	}
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			f := fx.start(t)
			var peerCalls atomic.Uint64
			viaBus := connect(t, d, atspi.Options{NoPeer: true})
			viaPeer := connect(t, d, atspi.Options{Calls: &peerCalls})
			frame := frameOf(t, viaBus, f.App)
			// A settled tree; both Buses know the toolkit by now.
			first := settled(t, viaBus, frame.Object)
			settled(t, viaPeer, frame.Object)

			// A walk that asks differently (every node, without the cache)
			// between them must not change what the next walk asks ahead
			// (ahead.go: each kind of walk keeps its own memory).
			walk(t, viaBus, frame.Object, atspi.WalkOptions{NoCache: true})

			mon := monitor(t, viaBus.Address(), viaBus.WireName())
			var depth, firstDepth int
			s := walk(t, viaBus, frame.Object, atspi.WithDepth(atspi.WalkOptions{}, &depth))
			kinds := mon.fence(t, viaBus, frame.Object)
			walk(t, viaBus, frame.Object, atspi.WithDepth(atspi.WithoutMemo(atspi.WalkOptions{}), &firstDepth))
			if s.Census != first.Census {
				t.Fatalf("the tree changed while counted: %+v, settled %+v", s.Census, first.Census)
			}
			total := 0
			for _, n := range kinds {
				total += n
			}
			nodes := s.Census.Nodes
			t.Logf("%s: one walk of %d nodes: %d D-Bus calls (%.2f a node), %d round trips deep (%d without the last walk's memory): %s", fx.name, nodes, total, float64(total)/float64(nodes), depth, firstDepth, kindList(kinds))

			before := peerCalls.Load()
			walk(t, viaPeer, frame.Object, atspi.WalkOptions{})
			if got := int(peerCalls.Load() - before); got != total {
				t.Errorf("through the peer socket the walk made %d calls, through the bus %d", got, total)
			}

			want := walkBudgets[fx.name]
			if nodes != want.nodes {
				t.Errorf("the fixture's window has %d nodes, the budget was set for %d", nodes, want.nodes)
			}
			if depth != want.depth || firstDepth != want.firstDepth {
				t.Errorf("the walk was %d round trips deep (%d without the last walk's memory), its budget is %d (%d)", depth, firstDepth, want.depth, want.firstDepth)
			}
			if total != want.total {
				t.Errorf("one walk made %d D-Bus calls, its budget is %d: a change of the budget is said where it is set", total, want.total)
			}
			for _, k := range slices.Sorted(maps.Keys(joinKeys(kinds, want.kinds))) {
				if kinds[k] != want.kinds[k] {
					t.Errorf("%s: %d calls, the budget is %d", k, kinds[k], want.kinds[k])
				}
			}
		})
	}
}

// joinKeys is a with b's keys added (at zero where a lacks them).
func joinKeys(a, b map[string]int) map[string]int {
	m := maps.Clone(a)
	for k := range b {
		if _, ok := m[k]; !ok {
			m[k] = 0
		}
	}
	return m
}

func kindList(kinds map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	return strings.Join(parts, ", ")
}

// callMonitor counts the method calls one sender makes on a bus, by kind.
type callMonitor struct {
	ch chan *dbus.Message
}

// monitor becomes a monitor (org.freedesktop.DBus.Monitoring) of the
// method calls sender makes on the bus at addr.
func monitor(t *testing.T, addr, sender string) *callMonitor {
	t.Helper()
	if sender == "" {
		t.Fatal("no sender to monitor")
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("monitor: %v", err)
	}
	t.Cleanup(func() {
		// godbus's Close closes the eavesdropping channel but leaves it
		// set, and its reader may still send a message it had read to
		// it: a panic. Handing the channel back first avoids that.
		conn.Eavesdrop(nil)
		conn.Close()
	})
	// Every message the connection gets goes to m.ch, the answer to
	// BecomeMonitor too: it is waited for there.
	m := &callMonitor{ch: make(chan *dbus.Message, 1<<16)}
	conn.Eavesdrop(m.ch)
	rule := "type='method_call',sender='" + sender + "'"
	conn.BusObject().Go("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, nil, []string{rule}, uint32(0))
	timeout := time.After(10 * time.Second)
	for {
		select {
		case msg := <-m.ch:
			switch msg.Type {
			case dbus.TypeMethodReply:
				return m
			case dbus.TypeError:
				t.Fatalf("BecomeMonitor: %v", msg.Body)
			}
		case <-timeout:
			t.Fatal("BecomeMonitor: no answer")
		}
	}
}

// fence makes one Peer.Ping to o through b, waits until the monitor has
// seen it (a sender's calls reach a monitor in the order it sent them) and
// returns the calls seen before it, by kind.
func (m *callMonitor) fence(t *testing.T, b *atspi.Bus, o atspi.Object) map[string]int {
	t.Helper()
	if err := b.CallRaw(t.Context(), o, "org.freedesktop.DBus.Peer.Ping"); err != nil {
		t.Fatalf("ping: %v", err)
	}
	kinds := map[string]int{}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case msg := <-m.ch:
			if msg.Type != dbus.TypeMethodCall {
				continue
			}
			member, _ := msg.Headers[dbus.FieldMember].Value().(string)
			iface, _ := msg.Headers[dbus.FieldInterface].Value().(string)
			if iface == "org.freedesktop.DBus.Peer" && member == "Ping" {
				return kinds
			}
			if iface == "org.freedesktop.DBus.Properties" && len(msg.Body) > 0 {
				// Get and the property; GetAll and the interface's last word.
				of, _ := msg.Body[len(msg.Body)-1].(string)
				member += " " + of[strings.LastIndexByte(of, '.')+1:]
			}
			kinds[member]++
		case <-timeout:
			t.Fatalf("the monitor never saw the fence; so far: %s", kindList(kinds))
		}
	}
}

// TestFirstWalkRoundTrips holds the first walk of a freshly started GTK 3
// application to the same budget of calls as a settled one, and its depth
// in round trips to a first walk's (firstDepth: no last walk to ask phase
// two early by): its Cache.GetItems
// answers, because the Bus listens to the registry (listen.go), whether
// the application started before the Bus connected (it builds its cache
// when the listener registers) or after (it builds it as it starts). A
// desktop of its own, so that no other test's listener is there first.
// Without the listener this application answers GetItems UnknownMethod
// and its first walk asks every node all four questions.
func TestFirstWalkRoundTrips(t *testing.T) {
	d := testenv.NewDesktop(t)
	early := fixture(t, d) // started while nobody listens
	b := connect(t, d, atspi.Options{NoPeer: true})
	late := fixture(t, d) // started while b listens
	want := walkBudgets["gtk3"]
	for _, f := range []struct {
		name string
		fx   *testenv.Fixture
	}{{"started before the Bus", early}, {"started after the Bus", late}} {
		frame := frameOf(t, b, f.fx.App)
		mon := monitor(t, b.Address(), b.WireName())
		var depth int
		s := walk(t, b, frame.Object, atspi.WithDepth(atspi.WalkOptions{}, &depth))
		kinds := mon.fence(t, b, frame.Object)
		total := 0
		for _, n := range kinds {
			total += n
		}
		t.Logf("%s: its first walk, %d nodes: %d D-Bus calls, %d round trips deep: %s", f.name, s.Census.Nodes, total, depth, kindList(kinds))
		if depth != want.firstDepth {
			t.Errorf("%s: the first walk was %d round trips deep, its budget is %d", f.name, depth, want.firstDepth)
		}
		if s.Census.Nodes != want.nodes {
			t.Errorf("%s: the fixture's window has %d nodes, the budget was set for %d", f.name, s.Census.Nodes, want.nodes)
		}
		// (frameOf's FindFrame asked the toolkit already.)
		if total != want.total || kinds["GetRole"] != want.kinds["GetRole"] {
			t.Errorf("%s: the first walk made %d D-Bus calls (GetRole %d), a settled one's budget is %d (GetRole %d)", f.name, total, kinds["GetRole"], want.total, want.kinds["GetRole"])
		}
	}
}

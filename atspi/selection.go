package atspi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// AT-SPI's Selection interface: a container (a notebook's page tab list,
// a list box, a tree view, a combo box) whose children are chosen by
// their index among its children. GTK 3 answers it synchronously: what
// SelectChild changed is read back at once.

// SelectChild selects the container's child i (Selection.SelectChild).
func (b *Bus) SelectChild(ctx context.Context, o Object, i int) error {
	return b.selBool(ctx, o, "SelectChild", "SelectChild", int32(i))
}

// DeselectChild deselects the container's child i (Selection.DeselectChild).
func (b *Bus) DeselectChild(ctx context.Context, o Object, i int) error {
	return b.selBool(ctx, o, "DeselectChild", "DeselectChild", int32(i))
}

// ClearSelection deselects every child (Selection.ClearSelection).
func (b *Bus) ClearSelection(ctx context.Context, o Object) error {
	return b.selBool(ctx, o, "ClearSelection", "ClearSelection")
}

// IsChildSelected reports whether the container's child i is selected.
func (b *Bus) IsChildSelected(ctx context.Context, o Object, i int) (bool, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	ok, err := b.route(cctx, o.Name).call(cctx, o.Path, ifaceSelection+".IsChildSelected", int32(i)).boolean()
	if err != nil {
		return false, objRefusal(o, "IsChildSelected", err)
	}
	return ok, nil
}

// Selected returns the container's selected children
// (Selection.NSelectedChildren, then GetSelectedChild of each).
func (b *Bus) Selected(ctx context.Context, o Object) ([]Object, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	rt := b.route(cctx, o.Name)
	r := rt.call(cctx, o.Path, ifaceProperties+".Get", ifaceSelection, "NSelectedChildren")
	if r.err != nil {
		return nil, objRefusal(o, "NSelectedChildren", r.err)
	}
	cnt, _ := r.body.variant().(int32)
	var out []Object
	for i := range min(int(cnt), 256) {
		r := rt.call(cctx, o.Path, ifaceSelection+".GetSelectedChild", int32(i))
		if r.err != nil {
			return nil, objRefusal(o, "GetSelectedChild", r.err)
		}
		if c := r.body.objRef(); r.body.err == nil && !c.IsNull() {
			out = append(out, c)
		}
	}
	return out, nil
}

func (b *Bus) selBool(ctx context.Context, o Object, what, method string, args ...any) error {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	ok, err := b.route(cctx, o.Name).call(cctx, o.Path, ifaceSelection+"."+method, args...).boolean()
	if err != nil {
		return objRefusal(o, what, err)
	}
	if !ok {
		return target.Refuse(target.CodeDeclined, "the application declined Selection.%s", method).With("object", o.Key())
	}
	return nil
}

// parent is the object's parent (the Accessible Parent property).
func (b *Bus) parent(ctx context.Context, o Object) (Object, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	r := b.route(cctx, o.Name).call(cctx, o.Path, ifaceProperties+".Get", ifaceAccessible, "Parent")
	if r.err != nil {
		return Object{}, objRefusal(o, "Parent", r.err)
	}
	p, _ := r.body.variant().(Object)
	return p, nil
}

// implements reports whether the object declares interface iface.
func (b *Bus) implements(ctx context.Context, o Object, iface string) (bool, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	r := b.route(cctx, o.Name).call(cctx, o.Path, ifaceAccessible+".GetInterfaces")
	if r.err != nil {
		return false, objRefusal(o, "GetInterfaces", r.err)
	}
	var ifs []string
	r.body.array(4, func() { ifs = append(ifs, r.body.str()) })
	return slices.Contains(ifs, iface), r.body.err
}

// SelectionParent returns the parent of o when that parent implements
// Selection, with o's index among the parent's children (GetChildren
// order, never GetIndexInParent: GTK 3's disagree), ok false otherwise.
func (b *Bus) SelectionParent(ctx context.Context, o Object) (parent Object, index int, ok bool, err error) {
	p, err := b.parent(ctx, o)
	if err != nil || p.IsNull() || p.Name == "" {
		return Object{}, -1, false, err
	}
	has, err := b.implements(ctx, p, ifaceSelection)
	if err != nil || !has {
		return Object{}, -1, false, err
	}
	kids, err := b.children(ctx, p)
	if err != nil {
		return Object{}, -1, false, err
	}
	i := slices.Index(kids, o)
	if i < 0 {
		return Object{}, -1, false, nil
	}
	return p, i, true, nil
}

// Click does what a click on the object does through the tree: its click
// action (DoAction), or — when it has no Action and its parent implements
// Selection (a notebook's page tab) — the parent's SelectChild of it. It
// returns the road's words ("its action \"Click\"", "its parent's
// Selection"). Refusals are DoAction's when neither applies.
func (b *Bus) Click(ctx context.Context, o Object) (string, error) {
	n, err := b.Node(ctx, o)
	if err != nil {
		return "", err
	}
	if !n.Implements("Action") || len(n.Actions) == 0 {
		p, i, ok, err := b.SelectionParent(ctx, o)
		if err != nil {
			return "", err
		}
		if ok {
			if !n.Sensitive() {
				return "", describe(target.Refuse(target.CodeNotSensitive, "%s is disabled (not sensitive)", label(n)), o, n)
			}
			if err := b.SelectChild(ctx, p, i); err != nil {
				return "", err
			}
			return "its parent's Selection", nil
		}
	}
	done, err := b.DoAction(ctx, o, "")
	if err != nil {
		return "", err
	}
	return "its action " + strconvQuote(done), nil
}

// option is one choice of a Selection container: its label and its index
// among the children of the object whose Selection counts it.
type option struct {
	name  string
	obj   Object
	index int
}

// Select makes the options named opts the chosen ones of the choice
// control o — a combo box (its menu's items), a list box or tree view (its
// rows or cells), a notebook (its page tabs; o may be the page tab list
// or one of its tabs) — through AT-SPI's Selection, and returns the names
// of the chosen children read back from the application afterwards.
// Options are matched by name: exactly, then ignoring case and GTK's
// mnemonic marks. A control that takes several options (several named,
// or it is multiselectable) is cleared first, then each selected
// (SelectChild, or Table.AddRowSelection where a tree view declines it),
// and must hold exactly those afterwards.
//
// Refusals: no_option when an option is not among the control's (the
// facts name the ones it has), no_action when neither o nor its parent
// implements Selection, not_sensitive when o is disabled, value_not_set
// when the selection read back is not the one asked.
func (b *Bus) Select(ctx context.Context, o Object, opts []string) ([]string, error) {
	n, err := b.Node(ctx, o)
	if err != nil {
		return nil, err
	}
	box := o
	if !n.Implements("Selection") {
		p, _, ok, err := b.SelectionParent(ctx, o)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, describe(target.Refuse(target.CodeNoAction, "%s is no choice control: neither it nor its parent implements Selection", label(n)), o, n)
		}
		box = p
	}
	if !n.Sensitive() {
		return nil, describe(target.Refuse(target.CodeNotSensitive, "%s is disabled (not sensitive)", label(n)), o, n)
	}
	options, table, err := b.options(ctx, box)
	if err != nil {
		return nil, err
	}
	var picks []int
	for _, want := range opts {
		i := matchOption(options, want)
		if i < 0 {
			names := make([]string, len(options))
			for k, op := range options {
				names[k] = op.name
			}
			return nil, describe(target.Refuse(target.CodeNoOption, "%s has no option %s (it has: %s)", label(n), strconvQuote(want), strings.Join(names, ", ")), o, n).
				With("options", names)
		}
		picks = append(picks, i)
	}
	// want is the picks' names, each once: what the control must hold.
	want := make([]string, 0, len(picks))
	for _, i := range picks {
		if !slices.Contains(want, options[i].name) {
			want = append(want, options[i].name)
		}
	}
	// A control that takes several keeps what it held beside a pick:
	// cleared first where it says it is multiselectable or several are
	// named; what it still holds beside the picks (a GTK list box that
	// does not say so) is deselected after.
	clear := len(picks) > 1
	if !clear {
		bn := n
		if box != o {
			if bn, err = b.Node(ctx, box); err != nil {
				return nil, err
			}
		}
		clear = bn.Has("multiselectable")
	}
	if clear {
		if err := b.ClearSelection(ctx, box); err != nil {
			return nil, err
		}
	}
	rows, err := b.selectPicks(ctx, box, options, picks, table)
	if err != nil {
		return nil, err
	}
	got, err := b.held(ctx, box, options, picks, rows)
	if err != nil {
		return nil, err
	}
	if extra := setMinus(got, want); len(extra) > 0 && !clear {
		if len(rows) > 0 {
			// Rows of a table: clear, and select the picks again.
			err = b.ClearSelection(ctx, box)
			if err == nil {
				rows, err = b.selectPicks(ctx, box, options, picks, table)
			}
		} else {
			for _, name := range extra {
				if k := slices.IndexFunc(options, func(op option) bool { return op.name == name }); k >= 0 && err == nil {
					err = b.DeselectChild(ctx, box, options[k].index)
				}
			}
		}
		if err != nil {
			return nil, err
		}
		if got, err = b.held(ctx, box, options, picks, rows); err != nil {
			return nil, err
		}
	}
	if !sameSet(got, want) {
		return got, target.Refuse(target.CodeValueNotSet, "%s holds %s after selecting %s", label(n), quoteAll(got), quoteAll(want)).
			With("object", o.Key()).With("selected", got)
	}
	return got, nil
}

// selectPicks selects each picked option: by Selection.SelectChild, or
// where a table declines it by Table.AddRowSelection; it answers the row
// of each pick selected that way.
func (b *Bus) selectPicks(ctx context.Context, box Object, options []option, picks []int, table bool) (map[int]int32, error) {
	rows := map[int]int32{} // pick → its table row, where Table selected it
	for _, i := range picks {
		err := b.SelectChild(ctx, box, options[i].index)
		if target.CodeOf(err) == target.CodeDeclined && table {
			var row int32
			row, err = b.selectRow(ctx, box, options[i].index)
			rows[i] = row
		}
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// held reads back what the container holds, from the application: the
// names of its selected children, or where Table selected some picks'
// rows (rows), the picks whose rows are selected and a count of the other
// rows selected ("2 other rows").
func (b *Bus) held(ctx context.Context, box Object, options []option, picks []int, rows map[int]int32) ([]string, error) {
	if len(rows) == 0 {
		return b.selectedNames(ctx, box, options)
	}
	got := []string{}
	for _, i := range picks {
		row, had := rows[i]
		if !had { // SelectChild took it: its row
			var err error
			if row, err = b.rowAt(ctx, box, options[i].index); err != nil {
				return nil, err
			}
		}
		if ok, err := b.rowSelected(ctx, box, row); err != nil {
			return nil, err
		} else if ok && !slices.Contains(got, options[i].name) {
			got = append(got, options[i].name)
		}
	}
	n, err := b.selectedRowCount(ctx, box)
	if err != nil {
		return nil, err
	}
	if n > len(got) {
		got = append(got, fmt.Sprintf("%d other rows", n-len(got)))
	}
	return got, nil
}

// setMinus is the members of a not in b, in a's order.
func setMinus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// options are the children a Selection container counts: its own
// children, or where a child is a menu or list (a GTK 3 combo box's
// popup), that child's items, indexed among themselves. They are read in
// one walk two levels deep (every call in flight together). table says
// whether the container is a table (its rows are selected through the
// Table interface where Selection declines).
func (b *Bus) options(ctx context.Context, box Object) (opts []option, table bool, err error) {
	s, rn, err := b.walk(ctx, box, WalkOptions{Depth: 2, NoCache: true, TextMax: 100})
	if err != nil {
		return nil, false, err
	}
	if rn.err != nil {
		return nil, false, objRefusal(box, "reading the options", rn.err)
	}
	kids := s.Root.Children
	for _, c := range kids {
		if c.Role == "menu" || c.Role == "list" {
			kids = c.Children
			break
		}
	}
	for i, n := range kids {
		o, err := ParseKey(n.Key)
		if err != nil || n.Unreadable != "" || n.Role == "separator" || n.Role == "table column header" {
			continue
		}
		if name := orText(n); name != "" {
			opts = append(opts, option{name: name, obj: o, index: i})
		}
	}
	return opts, s.Root.Implements("Table"), nil
}

// orText is a node's name, else its text.
func orText(n *target.Node) string {
	if n.Name != "" {
		return n.Name
	}
	return n.Text
}

// selectRow selects the table row of the container's child i (GTK 3's
// tree view declines Selection.SelectChild when it has several columns,
// and takes Table.AddRowSelection).
func (b *Bus) selectRow(ctx context.Context, box Object, i int) (int32, error) {
	row, err := b.rowAt(ctx, box, i)
	if err != nil {
		return -1, err
	}
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	ok, err := b.route(cctx, box.Name).call(cctx, box.Path, ifaceTable+".AddRowSelection", row).boolean()
	if err != nil {
		return -1, objRefusal(box, "AddRowSelection", err)
	}
	if !ok {
		return -1, target.Refuse(target.CodeDeclined, "the application declined Table.AddRowSelection of row %d", row).With("object", box.Key())
	}
	return row, nil
}

// rowAt is the table row of the container's child i (Table.GetRowAtIndex).
func (b *Bus) rowAt(ctx context.Context, box Object, i int) (int32, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	r := b.route(cctx, box.Name).call(cctx, box.Path, ifaceTable+".GetRowAtIndex", int32(i))
	if r.err != nil {
		return -1, objRefusal(box, "GetRowAtIndex", r.err)
	}
	return r.body.i32(), nil
}

// selectedRowCount is how many of a table's rows are selected
// (Table.NSelectedRows).
func (b *Bus) selectedRowCount(ctx context.Context, box Object) (int, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	r := b.route(cctx, box.Name).call(cctx, box.Path, ifaceProperties+".Get", ifaceTable, "NSelectedRows")
	if r.err != nil {
		return 0, objRefusal(box, "NSelectedRows", r.err)
	}
	cnt, _ := r.body.variant().(int32)
	return int(cnt), nil
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	return len(setMinus(a, b)) == 0 && len(setMinus(b, a)) == 0
}

// rowSelected reports whether a table's row is selected (Table.IsRowSelected).
func (b *Bus) rowSelected(ctx context.Context, box Object, row int32) (bool, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	ok, err := b.route(cctx, box.Name).call(cctx, box.Path, ifaceTable+".IsRowSelected", row).boolean()
	if err != nil {
		return false, objRefusal(box, "IsRowSelected", err)
	}
	return ok, nil
}

// matchOption finds want among the options: exactly, then ignoring case
// and mnemonic marks; -1 when none.
func matchOption(options []option, want string) int {
	if i := slices.IndexFunc(options, func(o option) bool { return o.name == want }); i >= 0 {
		return i
	}
	w := strings.ToLower(stripMnemonic(strings.TrimSpace(want)))
	return slices.IndexFunc(options, func(o option) bool { return strings.ToLower(stripMnemonic(o.name)) == w })
}

// selectedNames reads back the names of the container's selected
// children (by the options' names where the object is one of them).
func (b *Bus) selectedNames(ctx context.Context, box Object, options []option) ([]string, error) {
	sel, err := b.Selected(ctx, box)
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, o := range sel {
		if k := slices.IndexFunc(options, func(op option) bool { return op.obj == o }); k >= 0 {
			names = append(names, options[k].name)
			continue
		}
		ns, err := b.nodes(ctx, []Object{o})
		if err != nil {
			return nil, err
		}
		if ns[0] != nil && ns[0].Name != "" {
			names = append(names, ns[0].Name)
		}
	}
	return names, nil
}

func quoteAll(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconvQuote(x)
	}
	return strings.Join(q, ", ")
}

// nodes reads each object's own fields (one shallow walk each, in turn:
// a selection holds few children).
func (b *Bus) nodes(ctx context.Context, objs []Object) ([]*target.Node, error) {
	out := make([]*target.Node, len(objs))
	for i, o := range objs {
		if o.IsNull() {
			continue
		}
		s, _, err := b.walk(ctx, o, WalkOptions{Depth: -1, NoCache: true, TextMax: 100})
		if err != nil {
			return nil, err
		}
		if s.Root.Unreadable == "" {
			out[i] = s.Root
		}
	}
	return out, nil
}

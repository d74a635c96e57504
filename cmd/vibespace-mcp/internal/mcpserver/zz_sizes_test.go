package mcpserver

import (
	"encoding/json"
	"sort"
	"testing"
)

func TestZZSizes(t *testing.T) {
	cs := connect(t, Config{Session: "s", Groups: AllGroups})
	list, _ := cs.ListTools(t.Context(), nil)
	type kv struct {
		n    string
		d, s int
	}
	var all []kv
	for _, tl := range list.Tools {
		b, _ := json.Marshal(tl)
		sb, _ := json.Marshal(tl.InputSchema)
		all = append(all, kv{tl.Name, len(b), len(sb)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].d > all[j].d })
	for _, k := range all[:12] {
		t.Logf("%-22s %5d (schema %5d)", k.n, k.d, k.s)
	}
	for _, tl := range list.Tools {
		b, _ := json.Marshal(tl)
		t.Logf("TOOL %s", b)
	}
}

package daemon

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/vibespace/vibespace/target"
)

// A daemon of an earlier version (before displays were registered) kept its
// one display under the state's "display" key, of what is now the first
// provider (our Xvfb), and named each window by its X id ("xid"), where a
// window's key on an X display is now that id in hex. A daemon of this
// version that finds such a state (the earlier one was killed, its display
// left running) takes it over rather than orphan its applications.

// legacyKeys reads the X ids of the windows of the state file at path, as
// keys by target.
func legacyKeys(path string) map[target.ID]string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var st struct {
		Targets []struct {
			ID  target.ID `json:"id"`
			XID uint32    `json:"xid"`
		} `json:"targets"`
	}
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	keys := map[target.ID]string{}
	for _, t := range st.Targets {
		if t.XID != 0 {
			keys[t.ID] = fmt.Sprintf("0x%x", t.XID)
		}
	}
	return keys
}

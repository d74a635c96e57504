package app

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/vibespace/vibespace/daemon"
)

// printer prints answers as text or JSON.
type printer struct {
	out, err io.Writer
	json     bool
}

// answer prints resp and returns the error whose code Run exits with.
// print writes the verb-specific body of a successful text answer.
func (p printer) answer(resp daemon.Response, body func(w io.Writer)) error {
	failed := errPrinted{ExitRefused}
	if resp.Code == "internal" {
		failed = errPrinted{ExitUsage} // not a refusal: something of ours broke
	}
	if p.json {
		b, _ := json.Marshal(resp)
		fmt.Fprintln(p.out, string(b))
		if !resp.OK {
			return failed
		}
		return nil
	}
	if !resp.OK {
		fmt.Fprintf(p.err, "refused: %s [%s]\n", resp.Message, resp.Code)
		if f := facts(resp.Facts); f != "" {
			fmt.Fprintf(p.err, "  facts: %s\n", f)
		}
		if resp.Target != nil {
			fmt.Fprintf(p.err, "  %s\n", targetLine(resp.Target))
		}
		if resp.Note != "" {
			fmt.Fprintf(p.err, "note: %s\n", resp.Note)
		}
		return failed
	}
	if resp.Note != "" {
		fmt.Fprintf(p.out, "note: %s\n", resp.Note)
	}
	if resp.Target != nil {
		fmt.Fprintln(p.out, targetLine(resp.Target))
	}
	if resp.Did != "" {
		by := ""
		if resp.By != "" {
			by = " [by " + string(resp.By) + "]"
		}
		fmt.Fprintf(p.out, "%s%s\n", resp.Did, by)
	}
	if body != nil {
		body(p.out)
	}
	return nil
}

func targetLine(t *daemon.TargetInfo) string {
	return fmt.Sprintf("%s %q · lease: %s", t.ID, t.Title, t.Lease)
}

func facts(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}

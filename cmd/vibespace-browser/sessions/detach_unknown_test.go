package sessions_test

import (
	"strings"
	"testing"
)

// TestDetachUnknownProfile: detach --profile naming no profile and no
// handle is refused unknown_profile (exit 1), naming the profiles that
// exist, whether or not the session has anything attached; it never says
// "nothing was attached" as if the name were fine (issue 35 row 14).
func TestDetachUnknownProfile(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	e.OK("s", "new", "work")
	for _, attached := range []bool{false, true} {
		if attached {
			e.OK("s", "use", "work")
		}
		r := e.Refused("unknown_profile", "s", "detach", "--profile", "nonexistent")
		if strings.Contains(r.Out+r.Errout, "nothing was attached") || !strings.Contains(r.Errout, "nonexistent") || !strings.Contains(r.Errout, "work (bp-") {
			t.Errorf("detach --profile nonexistent (attached %v): exit %d\nstdout: %s\nstderr: %s", attached, r.Code, r.Out, r.Errout)
		}
		resp := e.RefusedJSON("unknown_profile", "s", "detach", "--profile", "nonexistent")
		if ps, _ := resp.Facts["profiles"].([]any); len(ps) != 1 || !strings.HasPrefix(ps[0].(string), "work (bp-") {
			t.Errorf("detach --profile nonexistent --json (attached %v): facts %v", attached, resp.Facts)
		}
	}
	// A profile that exists and is not attached is refused
	// profile_not_attached, with or without a set, saying how to attach it.
	e.OK("s", "detach", "--profile", "work")
	if r := e.Refused("profile_not_attached", "s", "detach", "--profile", "work"); !strings.Contains(r.Errout, "vibespace-browser use bp-") {
		t.Errorf("detach of a profile not attached:\n%s", r.Errout)
	}
}

package portal_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/internal/smallfs"
	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/portal"
)

// TestTokenStoreFaults (issue 35): a restore token file damaged while no
// daemon ran is never sent and never a crash: Load sets it aside and
// answers a *statefile.Damage that says why (never the token) with no
// token, so the portal's dialog comes back once and its answer's token is
// saved anew. Today a damaged file's bytes are sent as a token. Missing
// is "no token", nothing claimed.
func TestTokenStoreFaults(t *testing.T) {
	const token = "0f3c6a1e-5b7d-4c2a-9e8f-1a2b3c4d5e6f"
	for _, tc := range []struct {
		damage string
		do     func(p string) error
		why    string
	}{
		{"missing", os.Remove, ""},
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o600) }, "it is empty"},
		{"truncated", func(p string) error { return os.WriteFile(p, []byte(token[:12]), 0o600) }, "it is cut short"},
		{"garbage", func(p string) error { return os.WriteFile(p, []byte("{\x00garbage\n"), 0o600) }, "it is not a token"},
		{"wrong permissions", func(p string) error { return os.Chmod(p, 0o666) }, "another user could have written it"},
	} {
		t.Run(tc.damage, func(t *testing.T) {
			ts := portal.OpenTokenStore(filepath.Join(t.TempDir(), "state", "restore-token"))
			if err := ts.Save(token); err != nil {
				t.Fatal(err)
			}
			if err := tc.do(ts.Path()); err != nil {
				t.Fatal(err)
			}
			tok, err := ts.Load()
			if tok != "" {
				t.Fatalf("a damaged token file is sent as the token %q", tok)
			}
			if tc.why == "" {
				if err != nil {
					t.Fatalf("missing: %v", err)
				}
				return
			}
			var dmg *statefile.Damage
			if !errors.As(err, &dmg) || !strings.Contains(err.Error(), "restore-token was damaged") || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("Load: %v, want the damage: %s", err, tc.why)
			}
			if strings.Contains(err.Error(), token[:8]) {
				t.Fatalf("the words quote the token: %v", err)
			}
			if aside, _ := filepath.Glob(ts.Path() + ".damaged-*"); len(aside) != 1 {
				t.Fatalf("kept aside: %v", aside)
			}
			// The dialog's next token is saved and read back.
			if err := ts.Save(token); err != nil {
				t.Fatal(err)
			}
			if tok, err := ts.Load(); tok != token || err != nil {
				t.Fatalf("after saved anew: %q %v", tok, err)
			}
		})
	}
}

// TestTokenStoreReadOnly: in a directory that cannot be written (a
// read-only mount: chmod does not stop root) the token is read back whole,
// and a new one not saved is an error that says why, not a crash.
func TestTokenStoreReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	smallfs.MountAt(t, dir, 1<<20)
	ts := portal.OpenTokenStore(filepath.Join(dir, "restore-token"))
	if err := ts.Save("first-token"); err != nil {
		t.Fatal(err)
	}
	smallfs.ReadOnly(t, dir)
	if tok, err := ts.Load(); tok != "first-token" || err != nil {
		t.Fatalf("Load on a read-only mount: %q %v", tok, err)
	}
	err := ts.Save("second-token")
	if err == nil || !strings.Contains(err.Error(), "read-only file system") || strings.Contains(err.Error(), "second-token") {
		t.Fatalf("Save on a read-only mount: %v", err)
	}
}

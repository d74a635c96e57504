package xvfb

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
)

// familyWild is the Xauthority address family that matches any display.
const familyWild = 0xffff

// writeXauth writes an Xauthority file holding one random
// MIT-MAGIC-COOKIE-1 for any display. Xvfb is started with -auth on it, so a
// client without the cookie (another user's process) is refused.
func writeXauth(path string) error {
	cookie := make([]byte, 16)
	if _, err := rand.Read(cookie); err != nil {
		return err
	}
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, uint16(familyWild))
	for _, field := range [][]byte{nil, nil, []byte("MIT-MAGIC-COOKIE-1"), cookie} {
		_ = binary.Write(&b, binary.BigEndian, uint16(len(field)))
		b.Write(field)
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}

// xauthPath is the desktop's Xauthority file.
func (d *Desktop) xauthPath() string { return filepath.Join(d.Dir, "Xauthority") }

// Xauthority is the desktop's Xauthority file: its cookie admits a client
// of any uid that may read the file.
func (d *Desktop) Xauthority() string { return d.xauthPath() }

// allowOwnUser admits every process of our own uid to the display by the
// server-interpreted "localuser" rule (checked with SO_PEERCRED on the local
// socket), so our own X connections need no cookie while other users stay
// out: sessions of one uid are cooperative, other uids are not let in.
func (d *Desktop) allowOwnUser(ctx context.Context) error {
	u, err := user.Current()
	if err != nil {
		return err
	}
	bin, err := exec.LookPath("xhost")
	if err != nil {
		return fmt.Errorf("xvfb: xhost (x11-xserver-utils): %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, "+si:localuser:"+u.Username)
	cmd.Env = d.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("xvfb: xhost +si:localuser:%s: %v: %s", u.Username, err, strings.TrimSpace(string(out)))
	}
	return nil
}

package xpra

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Watchers is who watches the display through xpra's own clients (a person
// with `xpra attach`, or the HTML5 client): such a person sees every window
// of the display and can type into them without us.
type Watchers struct {
	Attached bool
	Since    time.Time // when the first of the attached clients connected
}

// Watchers reads whether a client is attached, with no call to xpra: its
// connect hooks append "connect <time>" when a client connects and
// "none <time>" when the last one leaves. A display whose hooks never ran
// has none.
func (d *Display) Watchers() (Watchers, error) {
	f, err := os.Open(d.srv.clientsFile())
	if os.IsNotExist(err) {
		return Watchers{}, nil
	}
	if err != nil {
		return Watchers{}, err
	}
	defer f.Close()
	var w Watchers
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ev, at, _ := strings.Cut(sc.Text(), " ")
		sec, _ := strconv.ParseInt(strings.TrimSpace(at), 10, 64)
		switch ev {
		case "connect":
			if !w.Attached {
				w = Watchers{Attached: true, Since: time.Unix(sec, 0)}
			}
		case "none":
			w = Watchers{}
		}
	}
	return w, sc.Err()
}

// Socket is the path of the server's unix socket (what a client attaches
// to).
func (d *Display) Socket() (string, error) { return d.srv.socket() }

// Attach is how a person attaches xpra's own client to the display: their
// windows appear on their desktop as windows of their own.
type Attach struct {
	// Local attaches from this machine as the same user.
	Local string
	// SSH attaches from another machine through OpenSSH: forward the
	// socket, then attach to the forwarded end (both lines, in order).
	SSH []string
}

// ErrBadHost is an ssh destination that is not [user@]host: the commands
// are pasted into a person's shell, so nothing else is printed in them.
var ErrBadHost = errors.New("xpra: not an ssh destination of the form [user@]host")

// AttachCommands answers the exact commands for this display. host is how
// the person reaches this machine over ssh ("user@host"); the socket path
// is the one on this machine. The forwarded socket on the person's side is
// named after both, so two forwards never unlink each other's.
func (d *Display) AttachCommands(host string) (Attach, error) {
	if !sshDestination(host) {
		return Attach{}, fmt.Errorf("%w: %q", ErrBadHost, host)
	}
	sock, err := d.srv.socket()
	if err != nil {
		return Attach{}, err
	}
	sum := sha256.Sum256([]byte(host + "\x00" + sock))
	local := "/tmp/vibespace-xpra-" + hex.EncodeToString(sum[:6]) + ".sock"
	return Attach{
		Local: "xpra attach socket://" + sock,
		SSH: []string{
			fmt.Sprintf("ssh -N -o StreamLocalBindUnlink=yes -L %s:%s %s &", local, sock, host),
			"xpra attach socket://" + local,
		},
	}, nil
}

// sshDestination reports whether s is [user@]host with no character a
// shell reads specially: letters, digits, ".", "-", "_", and a host's
// "[", "]", ":" (IPv6).
func sshDestination(s string) bool {
	user, host, ok := strings.Cut(s, "@")
	if !ok {
		user, host = "", s
	}
	if host == "" || strings.HasPrefix(host, "-") || strings.HasPrefix(user, "-") || ok && user == "" {
		return false
	}
	for _, r := range user + host {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(".-_", r):
		case strings.ContainsRune("[]:", r) && strings.ContainsRune(host, r):
		default:
			return false
		}
	}
	return true
}

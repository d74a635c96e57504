package wire

import (
	"encoding/hex"
	"errors"
	"hash/fnv"
	"path/filepath"
)

// Paths derives the state directory and the socket path from environment
// values, which the caller reads (getenv is os.Getenv in a main):
//
//   - state: $VIBESPACE_HOME, else $XDG_STATE_HOME/vibespace, else
//     $HOME/.local/state/vibespace;
//   - socket: $XDG_RUNTIME_DIR/vibespace/window-<hash of state>.sock, else
//     <state>/run/window.sock.
//
// The socket name carries a hash of the state directory so that two state
// directories (two VIBESPACE_HOMEs) never share a daemon.
func Paths(getenv func(string) string) (stateDir, socket string, err error) {
	stateDir = getenv("VIBESPACE_HOME")
	if stateDir == "" {
		if x := getenv("XDG_STATE_HOME"); x != "" {
			stateDir = filepath.Join(x, "vibespace")
		} else if h := getenv("HOME"); h != "" {
			stateDir = filepath.Join(h, ".local", "state", "vibespace")
		} else {
			return "", "", errors.New("neither VIBESPACE_HOME, XDG_STATE_HOME nor HOME is set")
		}
	}
	stateDir, err = filepath.Abs(stateDir)
	if err != nil {
		return "", "", err
	}
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" {
		// FNV-1a, not a cryptographic hash: the name only keeps two state
		// directories' sockets apart (it is no secret and guards nothing),
		// and crypto/sha256 would bring the FIPS module's initialisers into
		// every command line's start.
		h := fnv.New32a()
		h.Write([]byte(stateDir))
		socket = filepath.Join(rt, "vibespace", "window-"+hex.EncodeToString(h.Sum(nil))+".sock")
	} else {
		socket = filepath.Join(stateDir, "run", "window.sock")
	}
	return stateDir, socket, nil
}

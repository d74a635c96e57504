package xvfb

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// OwnerVar is the environment variable that names a desktop's owner
// (Options.Owner) in every process of it.
const OwnerVar = "VIBESPACE_OWNER"

// Sweep stops every desktop whose processes carry owner's mark: what an
// owner that lost its records of them (a damaged state file) left running,
// out of reach of anyone. Each is torn down as Close does (every process
// carrying its marker ended, its temp dir removed). It answers the
// desktops stopped ("desktop 4f9cd8b211f4 (:5)"). An empty owner sweeps
// nothing. The caller must hold none of the owner's desktops open: they
// would be stopped too.
func Sweep(owner string) ([]string, error) {
	if owner == "" {
		return nil, nil
	}
	found := map[string]State{}
	want := []byte(OwnerVar + "=" + owner)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		var s State
		mine := false
		for _, kv := range bytes.Split(env, []byte{0}) {
			k, v, _ := strings.Cut(string(kv), "=")
			switch k {
			case OwnerVar:
				mine = v == owner
			case markerVar:
				s.ID = v
			case "HOME":
				s.Dir = filepath.Dir(v) // a desktop's HOME is <dir>/home
			case "DISPLAY":
				s.Display = v
			}
		}
		if !mine || s.ID == "" {
			continue
		}
		if old, ok := found[s.ID]; ok && old.Display != "" {
			s.Display = old.Display
		}
		found[s.ID] = s
	}
	var stopped []string
	var errs []error
	for id, s := range found {
		d := &Desktop{ID: id, Display: s.Display}
		// Only a directory named as Start names a desktop's is removed.
		if strings.HasPrefix(filepath.Base(s.Dir), "vibespace-testenv-"+id+"-") {
			d.Dir = s.Dir
		}
		if err := d.Close(); err != nil {
			errs = append(errs, fmt.Errorf("desktop %s: %w", id, err))
		}
		w := "desktop " + id
		if s.Display != "" {
			w += " (" + s.Display + ")"
		}
		stopped = append(stopped, w)
	}
	sort.Strings(stopped)
	return stopped, errors.Join(errs...)
}

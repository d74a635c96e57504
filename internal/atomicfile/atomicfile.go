// Package atomicfile replaces a file so that a reader, or a crash, sees
// either its old content or its new, never a part: a temporary file in the
// same directory, mode 0600, synced, renamed over the file, then the
// directory synced.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Write replaces path with data, mode 0600. On any failure the temporary
// file is removed and path is left as it was. Syncing the directory after
// the rename is best effort: the new content is in place by then, and
// failing must not make a caller roll back a state already on disk.
func Write(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*"+tempSuffix)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if err = f.Chmod(0o600); err != nil { // CreateTemp makes 0600 already; say so whatever the umask
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	_ = SyncDir(dir)
	return nil
}

// SyncDir makes the renames and removals made in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

const tempSuffix = ".tmp"

// IsTemp reports whether name (a file name, not a path) is one of Write's
// temporary files: ".<file>.<random>.tmp".
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, tempSuffix) && strings.Count(name, ".") >= 3
}

// RemoveTemps deletes the temporary files a crash between Write's create
// and rename left in dir for the file named base (every file's, when base
// is ""). Call it before anyone writes there again.
func RemoveTemps(dir, base string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || !IsTemp(n) {
			continue
		}
		if base != "" && !strings.HasPrefix(n, "."+base+".") {
			continue
		}
		_ = os.Remove(filepath.Join(dir, n))
	}
}

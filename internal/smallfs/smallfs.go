// Package smallfs gives a test a real small filesystem: a tmpfs of a few
// hundred kilobytes mounted on a temp directory (unmounted when the test
// ends), filled until the kernel answers ENOSPC, or remounted read-only —
// the faults a state directory meets, made for real rather than faked.
// Mounting needs root (CI runs as root): without it the test is skipped
// with the reason, or fails under VIBESPACE_INTEGRATION=1, where nothing
// may skip.
package smallfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Mount mounts a tmpfs of size bytes (mode 0700) on a new temp directory
// and answers it; it is unmounted when the test ends, after the cleanups
// registered later (a daemon using it) ran.
func Mount(t testing.TB, size int) string {
	t.Helper()
	dir := t.TempDir()
	MountAt(t, dir, size)
	return dir
}

// MountAt is Mount on dir, made if need be (a state directory's own
// subdirectory, say).
func MountAt(t testing.TB, dir string, size int) {
	t.Helper()
	if os.Geteuid() != 0 {
		unable(t, "mounting a tmpfs needs root (and chmod does not stop root's writes)", syscall.EPERM)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		unable(t, "mount -t tmpfs", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("umount %s: %v (unmounted lazily)", dir, err)
			unix.Unmount(dir, unix.MNT_DETACH)
		}
	})
}

// ReadOnly remounts the tmpfs Mount made on dir read-only (writable
// again answers what makes it writable once more).
func ReadOnly(t testing.TB, dir string) (writable func()) {
	t.Helper()
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount %s read-only: %v", dir, err)
	}
	return func() {
		if err := unix.Mount("", dir, "", unix.MS_REMOUNT, ""); err != nil {
			t.Fatalf("remount %s writable: %v", dir, err)
		}
	}
}

// Fill writes a file under dir until its filesystem is full (ENOSPC) and
// answers what frees the space again.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err = f.Write(chunk); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling %s ended with %v, not ENOSPC", dir, err)
	}
	return func() {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}

func unable(t testing.TB, why string, err error) {
	t.Helper()
	msg := fmt.Sprintf("a real small filesystem is needed: %s: %v", why, err)
	if os.Getenv("VIBESPACE_INTEGRATION") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (run as root, as CI does; VIBESPACE_INTEGRATION=1 makes this a failure)")
}

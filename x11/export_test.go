package x11

import "errors"

// DisableSHM makes d's captures use core GetImage, as on a server that
// cannot attach our segment.
func DisableSHM(d *Display) {
	d.ext.shm.mu.Lock()
	d.ext.shm.probed = true
	d.ext.shm.broken = errors.New("disabled by the test")
	d.ext.shm.mu.Unlock()
}

// KeymapNotices is how many MappingNotify events of the keyboard or
// modifier mappings d has read.
func KeymapNotices(d *Display) uint64 { return d.ext.mapGen.Load() }

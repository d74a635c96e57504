//go:build !cgo || vibespace_nopipewire

package capture

import (
	"context"
	"errors"
	"os"
)

// PipeWireBuiltIn reports whether this build reads pixels over PipeWire.
const PipeWireBuiltIn = false

// ErrNoPipeWire is what OpenPipeWire answers in a build without PipeWire.
var ErrNoPipeWire = errors.New("capture: pixels over PipeWire were not built in (this build has no cgo, or the vibespace_nopipewire tag)")

// PipeWireStream is the Source of one PipeWire video node; this build
// cannot open one.
type PipeWireStream struct{}

// OpenPipeWire answers ErrNoPipeWire: this build has no PipeWire.
func OpenPipeWire(ctx context.Context, remote *os.File, runtimeDir string, node uint32) (*PipeWireStream, error) {
	return nil, ErrNoPipeWire
}

// Size is 0, 0.
func (s *PipeWireStream) Size() (width, height int) { return 0, 0 }

// RequestKeyframe does nothing.
func (s *PipeWireStream) RequestKeyframe() {}

// Next answers ErrNoPipeWire.
func (s *PipeWireStream) Next(ctx context.Context) (Frame, error) { return Frame{}, ErrNoPipeWire }

// Crop is where a delivered frame was cut from its stream's buffer (see
// the PipeWire build's); this build delivers none.
type Crop struct {
	X, Y    int
	Cropped bool
}

// Crop is the zero Crop.
func (s *PipeWireStream) Crop() Crop { return Crop{} }

// Close does nothing.
func (s *PipeWireStream) Close() error { return nil }

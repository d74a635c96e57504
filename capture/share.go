package capture

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/target"
)

// Share reads each of its sources once, however many readers it has:
// the first Open of a key opens the source, later Opens of that key join
// it, and the last reader's Close closes it.
//
// It exists for sources that send a picture only when it changes, as
// mutter's screen-cast streams do over PipeWire: mutter sends a stream's
// first picture when the stream starts, to the consumers connected then;
// a second consumer that connects to a stream already running gets
// nothing until the window changes. A live pane opened while a screenshot
// (or another pane's thumbnail) read the same window stayed black for as
// long as the window stood still. Through a Share the second reader is
// given the newest picture the first one read.
//
// A source whose first picture does not come within FirstWait is opened
// again (a new connection, which mutter starts anew), at most Reopens
// times; then every reader's Next fails no_capture, naming the wait.
type Share struct {
	// FirstWait is how long a source may take to send its first picture
	// before it is opened again (default 5 s).
	FirstWait time.Duration
	// Reopens is how many times it is opened again (default 2).
	Reopens int

	mu      sync.Mutex
	sources map[any]*shared
}

// shared is one source of a Share and the newest picture it sent.
type shared struct {
	sh      *Share
	key     any
	what    string
	open    func(context.Context) (Source, error)
	ready   chan struct{} // closed once the source is open (or failed to)
	openErr error         // why it failed to; set before ready is closed
	cancel  context.CancelFunc
	done    chan struct{} // the pump returned (and closed the source)
	refs    int           // guarded by sh.mu

	mu     sync.Mutex
	newest Frame // Pix is never written after it is stored
	count  uint64
	err    error
	tick   chan struct{} // closed at each picture and at the end
}

// Open returns a reader of key's source, opening it with open if no
// reader of key is open; Opens of a key meanwhile wait for that one and
// join it (two connections at once are what loses the first picture).
// what names the source in errors ("PipeWire node 40"). A source that
// fails is forgotten: the next Open opens it anew.
func (sh *Share) Open(ctx context.Context, key any, what string, open func(context.Context) (Source, error)) (Source, error) {
	for {
		sh.mu.Lock()
		s := sh.sources[key]
		if s == nil {
			if sh.sources == nil {
				sh.sources = make(map[any]*shared)
			}
			s = &shared{sh: sh, key: key, what: what, open: open, done: make(chan struct{}), ready: make(chan struct{}), refs: 1, tick: make(chan struct{})}
			sh.sources[key] = s
			sh.mu.Unlock()
			return s.start(ctx)
		}
		sh.mu.Unlock()
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if s.openErr != nil {
			return nil, s.openErr
		}
		sh.mu.Lock()
		if sh.sources[key] == s { // still read: join it
			s.refs++
			sh.mu.Unlock()
			return newReader(s), nil
		}
		sh.mu.Unlock() // it ended meanwhile: open it anew
	}
}

// start opens s's source for its first reader and starts reading it.
func (s *shared) start(ctx context.Context) (Source, error) {
	defer close(s.ready)
	src, err := s.open(ctx)
	if err != nil {
		s.openErr = err
		s.sh.forget(s)
		close(s.done)
		return nil, err
	}
	pctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.pump(pctx, src)
	return newReader(s), nil
}

// Sources is how many sources are open.
func (sh *Share) Sources() int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return len(sh.sources)
}

func (sh *Share) firstWait() time.Duration {
	if sh.FirstWait > 0 {
		return sh.FirstWait
	}
	return 5 * time.Second
}

func (sh *Share) reopens() int {
	if sh.Reopens > 0 {
		return sh.Reopens
	}
	return 2
}

// pump reads src until ctx ends (the last reader left) or src fails,
// keeping its newest picture; it closes the source it holds when it
// returns.
func (s *shared) pump(ctx context.Context, src Source) {
	defer close(s.done)
	defer func() { _ = src.Close() }()
	opened := 1
	for {
		nctx, cancel := ctx, context.CancelFunc(func() {})
		first := s.pictures() == 0
		if first {
			nctx, cancel = context.WithTimeout(ctx, s.sh.firstWait())
		}
		f, err := src.Next(nctx)
		cancel()
		switch {
		case err == nil:
			s.publish(f, nil)
			continue
		case ctx.Err() != nil:
			return
		case first && nctx.Err() != nil && opened <= s.sh.reopens():
			// No first picture: a new connection makes the producer
			// start the stream anew.
			_ = src.Close()
			octx, ocancel := context.WithTimeout(ctx, s.sh.firstWait())
			src, err = s.open(octx)
			ocancel()
			if err == nil {
				opened++
				continue
			}
			src = nopSource{}
		case first && nctx.Err() != nil:
			err = target.Refuse(target.CodeNoCapture, "%s sent no picture: none came within %s of its start, %d times connected", s.what, s.sh.firstWait(), opened)
		}
		s.sh.forget(s)
		s.publish(Frame{}, err)
		return
	}
}

// nopSource stands for a source whose reopening failed, so that the pump
// has nothing to close.
type nopSource struct{}

func (nopSource) Next(context.Context) (Frame, error) { return Frame{}, ErrClosed }
func (nopSource) RequestKeyframe()                    {}
func (nopSource) Close() error                        { return nil }

func (s *shared) pictures() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// publish stores a picture (or the error the source ended with) and wakes
// every reader.
func (s *shared) publish(f Frame, err error) {
	s.mu.Lock()
	if err != nil {
		s.err = err
	} else {
		s.newest, s.count = f, s.count+1
	}
	close(s.tick)
	s.tick = make(chan struct{})
	s.mu.Unlock()
}

// forget drops s from its Share, if it is still there, so that the next
// Open opens its key anew.
func (sh *Share) forget(s *shared) {
	sh.mu.Lock()
	if sh.sources[s.key] == s {
		delete(sh.sources, s.key)
	}
	sh.mu.Unlock()
}

// release drops one reader; the last one stops the pump, which closes the
// source.
func (sh *Share) release(s *shared) {
	sh.mu.Lock()
	s.refs--
	last := s.refs == 0
	if last && sh.sources[s.key] == s {
		delete(sh.sources, s.key)
	}
	sh.mu.Unlock()
	if last {
		s.cancel()
		<-s.done
	}
}

// reader is one reader of a shared source: the newest picture it has not
// been given yet.
type reader struct {
	s       *shared
	given   uint64 // the source's count at the last picture given
	seq     uint64
	again   atomic.Bool
	wake    chan struct{} // a keyframe request for a Next waiting
	stopped chan struct{}
	once    sync.Once
}

func newReader(s *shared) *reader {
	return &reader{s: s, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
}

// RequestKeyframe makes the next Next give the newest picture even if
// this reader was given it already; a Next waiting for a picture gives it
// at once (a still window sends none: a viewer that connected after the
// first picture went out is given it this way).
func (r *reader) RequestKeyframe() {
	r.again.Store(true)
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Next gives a copy of the newest picture not given yet (or, after
// RequestKeyframe, the newest), waiting for one until ctx ends.
func (r *reader) Next(ctx context.Context) (Frame, error) {
	for {
		r.s.mu.Lock()
		f, n, err, tick := r.s.newest, r.s.count, r.s.err, r.s.tick
		r.s.mu.Unlock()
		if n > 0 && (n != r.given || r.again.Load()) {
			r.again.Store(false)
			f.Forced = n == r.given
			f.Pix = append([]byte(nil), f.Pix...)
			r.given = n
			r.seq++
			f.Seq = r.seq
			return f, nil
		}
		if err != nil {
			return Frame{}, err
		}
		select {
		case <-tick:
		case <-r.wake:
		case <-r.stopped:
			return Frame{}, ErrClosed
		case <-ctx.Done():
			return Frame{}, ctx.Err()
		}
	}
}

// Close leaves the source (the last reader closes it). A Next in progress
// returns ErrClosed.
func (r *reader) Close() error {
	r.once.Do(func() {
		close(r.stopped)
		r.s.sh.release(r.s)
	})
	return nil
}

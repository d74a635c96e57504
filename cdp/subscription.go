package cdp

import (
	"bytes"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// subscription buffers events without bound, so a slow reader never stalls
// the read loop; its pump goroutine hands them to out in order.
type subscription struct {
	out      chan jsonv2.Value
	wake     chan struct{}
	quit     chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex
	queue    []jsonv2.Value
}

func newSubscription() *subscription {
	s := &subscription{
		out:  make(chan jsonv2.Value),
		wake: make(chan struct{}, 1),
		quit: make(chan struct{}),
	}
	go s.pump()
	return s
}

// push queues a copy of v (the read buffer is reused).
func (s *subscription) push(v jsonv2.Value) {
	cp := bytes.Clone(v)
	if cp == nil {
		cp = jsonv2.Value("{}")
	}
	s.mu.Lock()
	s.queue = append(s.queue, cp)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscription) stop() { s.stopOnce.Do(func() { close(s.quit) }) }

func (s *subscription) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.quit:
				return
			}
		}
		v := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- v:
		case <-s.quit:
			return
		}
	}
}

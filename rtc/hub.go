package rtc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/logging"
	"github.com/pion/webrtc/v4"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/target"
)

// OpenFunc opens the capture source of a target; the Hub calls it when the
// target's first viewer arrives and closes the source when the last leaves.
type OpenFunc func(ctx context.Context) (capture.Source, error)

// Hub is the live view of one daemon: a Pipeline per watched target and the
// viewers of each. It is safe for concurrent use.
type Hub struct {
	o           Options
	logs        logging.LoggerFactory
	unavailable error
	tcpMux      *ice.TCPMuxDefault // every viewer's ICE-TCP, over Options.ICETCPListener; nil: none

	base   context.Context
	cancel context.CancelFunc

	onInput  atomic.Pointer[InputHandler] // receives viewers' input (input.go)
	inputBad atomic.Uint64                // input messages dropped as invalid

	mu      sync.Mutex
	pipes   map[pipeKey]*Pipeline
	opening map[pipeKey]chan struct{} // a source being opened; closed when done
	viewers map[string]*viewer
	nextID  uint64

	sources    map[string]*sharedSource // the capture of each watched target
	srcOpening map[string]chan struct{} // a target's source being opened
	opens      map[string]uint64        // sources opened, by target
	stopped    map[string]error         // why a target's last pipeline ended by itself (Stopped)
	closed     bool
}

// New makes a Hub. With no NewEncoder and a build without VP8 it still
// works, but every Offer is refused with live_view_unavailable.
func New(o Options) *Hub {
	var unavailable error
	if o.NewEncoder == nil && !VP8Available() {
		_, unavailable = NewVP8(EncoderOptions{})
	}
	o = o.withDefaults()
	h := &Hub{
		unavailable: unavailable,
		o:           o,
		logs:        pionLogs{o.Logger},
		pipes:       make(map[pipeKey]*Pipeline),
		opening:     make(map[pipeKey]chan struct{}),
		viewers:     make(map[string]*viewer),
		sources:     make(map[string]*sharedSource),
		srcOpening:  make(map[string]chan struct{}),
		opens:       make(map[string]uint64),
		stopped:     make(map[string]error),
	}
	if o.ICETCPListener != nil {
		h.tcpMux = ice.NewTCPMuxDefault(ice.TCPMuxParams{
			Listener: o.ICETCPListener,
			Logger:   h.logs.NewLogger("ice-tcp"),
			// Packets read ahead per connection: a viewer sends little
			// (its ICE checks, RTCP, input).
			ReadBufferSize: 64,
			// A viewer whose TCP road is slower than the video is dropped
			// packets (NACK and PLI recover), rather than stalling the
			// track every viewer of the pipeline shares.
			WriteBufferSize: tcpWriteBuffer,
			// A connection that never says who it is does not hold Close.
			FirstStunBindTimeout: 5 * time.Second,
		})
	}
	h.base, h.cancel = context.WithCancel(context.Background())
	return h
}

// tcpWriteBuffer bounds what waits to be written to one viewer's ICE-TCP
// connection: about two seconds of video at the highest bitrate.
const tcpWriteBuffer = 1 << 20

// ICETCPAddr is the address of the passive ICE-TCP candidate every viewer
// is offered (Options.ICETCPListener), nil when there is none.
func (h *Hub) ICETCPAddr() net.Addr {
	if h.tcpMux == nil {
		return nil
	}
	return h.tcpMux.LocalAddr()
}

// Available is nil when the live view can run in this build, and the
// live_view_unavailable refusal saying why otherwise.
func (h *Hub) Available() error { return h.unavailable }

// Answer is the hub's reply to a viewer's offer.
type Answer struct {
	ViewerID string
	SDP      string // the complete answer, every candidate gathered
	Pipeline uint64 // the pipeline the viewer joined
	Codec    Codec  // the codec negotiated
}

// Offer adds a viewer of the target key at the full tier: OfferTier with
// TierFull.
func (h *Hub) Offer(ctx context.Context, key string, open OpenFunc, offer string) (Answer, error) {
	return h.OfferTier(ctx, key, TierFull, open, offer)
}

// OfferTier adds a viewer of the target key at tier t: it joins the
// pipeline of that target, tier and codec, starting it if this is its
// first viewer, and answers offer. The target's source is opened (with
// open) once, by its first pipeline, and shared by every pipeline of the
// target. ctx bounds opening the source and the answer; the viewer and
// pipeline outlive it. A viewer that does not connect within
// ConnectTimeout, or whose connection later fails or closes, is dropped.
func (h *Hub) OfferTier(ctx context.Context, key string, t Tier, open OpenFunc, offer string) (Answer, error) {
	if h.unavailable != nil {
		return Answer{}, h.unavailable
	}
	if _, err := ParseTier(string(t)); err != nil {
		return Answer{}, err
	}
	codec := h.chooseCodec(offer)
	p, err := h.pipeline(ctx, pipeKey{key, codec, t}, open)
	if err != nil {
		return Answer{}, err
	}
	v := &viewer{id: newID(), p: p}
	api, err := h.newAPI(codec, v.setEstimator, &v.sent)
	if err != nil {
		h.leave(v, "setup failed")
		return Answer{}, err
	}
	if v.pc, err = api.NewPeerConnection(webrtc.Configuration{}); err != nil {
		h.leave(v, "setup failed")
		return Answer{}, fmt.Errorf("rtc: new peer connection: %w", err)
	}
	// Register before anything can fail, so every exit path tears it down.
	if !h.join(p, v) {
		v.close()
		if err := ended(p); err != nil {
			return Answer{}, err
		}
		return Answer{}, target.Refuse(target.CodeLiveViewUnavailable, "the live view of %s has just stopped; try again", key).With("target", key)
	}
	sdp, err := h.negotiate(ctx, v, offer)
	if err != nil {
		h.leave(v, "negotiation failed")
		if perr := ended(p); perr != nil { // the pipeline ended under us
			err = perr
		}
		return Answer{}, err
	}
	p.requestKeyframe()
	return Answer{ViewerID: v.id, SDP: sdp, Pipeline: p.id, Codec: codec}, nil
}

// ended is why p ended by itself, as a refusal; nil if it did not.
func ended(p *Pipeline) error {
	err := p.stats(0).Err
	if err == nil || target.CodeOf(err) != "" {
		return err
	}
	return target.Refuse(target.CodeLiveViewUnavailable, "the live view of %s stopped: %v", p.key, err).With("target", p.key).Wrap(err)
}

// negotiate adds the pipeline's track to v's peer connection and answers
// offer once every local candidate is gathered.
func (h *Hub) negotiate(ctx context.Context, v *viewer, offer string) (string, error) {
	var err error
	if v.sender, err = v.pc.AddTrack(v.p.track); err != nil {
		return "", fmt.Errorf("rtc: add track: %w", err)
	}
	go v.readRTCP()
	v.pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		h.o.Logger.Debug("live view: viewer state", "viewer", v.id, "target", v.p.key, "state", s.String())
		switch s {
		case webrtc.PeerConnectionStateConnected:
			v.connected.Store(true)
			// What was written before the viewer's SRTP was up went
			// nowhere (pion drops it): the keyframe made for its offer
			// among it. A still target sends nothing more by itself, and
			// a viewer need not ask (PLI): make one now that it can land.
			v.p.requestKeyframe()
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			go h.leave(v, s.String())
		}
	})
	// A viewer that closes its peer connection sends a DTLS close_notify:
	// drop it at once rather than after the ICE consent timeouts.
	v.sender.Transport().OnStateChange(func(s webrtc.DTLSTransportState) {
		if s == webrtc.DTLSTransportStateClosed || s == webrtc.DTLSTransportStateFailed {
			go h.leave(v, "dtls "+s.String())
		}
	})
	h.acceptDataChannels(v)
	if err := v.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return "", target.Refuse(target.CodeBadRequest, "the viewer's offer was not usable: %v", err).Wrap(err)
	}
	answer, err := v.pc.CreateAnswer(nil)
	if err != nil {
		return "", target.Refuse(target.CodeBadRequest, "cannot answer the viewer's offer: %v", err).Wrap(err)
	}
	gathered := webrtc.GatheringCompletePromise(v.pc)
	if err := v.pc.SetLocalDescription(answer); err != nil {
		return "", fmt.Errorf("rtc: set local description: %w", err)
	}
	gctx, cancel := context.WithTimeout(ctx, h.o.GatherTimeout)
	defer cancel()
	select {
	case <-gathered:
	case <-gctx.Done():
		return "", target.Refuse(target.CodeTimeout, "gathering ICE candidates took longer than %s", h.o.GatherTimeout).Wrap(gctx.Err())
	}
	v.watchConnect(h.o.ConnectTimeout, func() { h.leave(v, "never connected") })
	return v.pc.LocalDescription().SDP, nil
}

// pipeline returns the running pipeline of pk, starting one if none runs.
// One caller at a time opens pk's source (open runs without the hub's
// lock); viewers arriving meanwhile wait for it and share what it started,
// so a target is captured once however many viewers come at once.
func (h *Hub) pipeline(ctx context.Context, pk pipeKey, open OpenFunc) (*Pipeline, error) {
	key := pk.key
	var p *Pipeline
	done, err := claim(ctx, h, pk, h.opening, func() bool { p = h.pipes[pk]; return p != nil })
	if err != nil || done == nil {
		return p, err
	}
	defer done()
	src, err := h.acquire(ctx, key, pk.tier, open)
	if err != nil {
		return nil, err
	}
	sample, err := webrtc.NewTrackLocalStaticSample(pk.codec.capability(), "video", "vibespace")
	if err != nil {
		_ = src.Close()
		return nil, fmt.Errorf("rtc: new track: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		h.mu.Unlock()
		_ = src.Close() // leaves the shared source, which takes h.mu
		h.mu.Lock()
		return nil, errors.New("rtc: hub closed")
	}
	// No pipeline of pk can have started meanwhile: only the caller
	// holding h.opening[pk] starts one.
	h.nextID++
	ctx, cancel := context.WithCancel(h.base)
	p = &Pipeline{
		id: h.nextID, key: key, codec: pk.codec, tier: pk.tier, newEncoder: h.encoderFor(pk.codec), hub: h, src: src,
		cancel: cancel, done: make(chan struct{}), viewers: make(map[string]*viewer), started: time.Now(),
	}
	p.track = &keyedTrack{TrackLocalStaticSample: sample, onBind: p.requestKeyframe}
	h.pipes[pk] = p
	go p.run(ctx)
	h.o.Logger.Info("live view: pipeline started", "target", key, "codec", string(pk.codec), "tier", string(pk.tier), "pipeline", p.id)
	return p, nil
}

// join registers v with its pipeline; false if the pipeline has ended.
func (h *Hub) join(p *Pipeline, v *viewer) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pipes[p.pk()] != p {
		return false
	}
	p.viewers[v.id] = v
	h.viewers[v.id] = v
	return true
}

// leave drops v: its peer connection is closed, and if it was the last
// viewer of its pipeline, the pipeline stops.
func (h *Hub) leave(v *viewer, why string) {
	h.mu.Lock()
	p := v.p
	_, known := h.viewers[v.id]
	delete(h.viewers, v.id)
	delete(p.viewers, v.id)
	last := len(p.viewers) == 0 && h.pipes[p.pk()] == p
	if last {
		delete(h.pipes, p.pk())
	}
	h.mu.Unlock()
	if known {
		h.o.Logger.Info("live view: viewer left", "viewer", v.id, "target", p.key, "why", why)
	}
	if v.pc != nil {
		v.close()
	}
	if last {
		p.stop()
		h.o.Logger.Info("live view: pipeline stopped, no viewer left", "target", p.key, "pipeline", p.id)
	}
}

// pipelineEnded is called by a pipeline whose loop returned: it is
// forgotten and its viewers are dropped.
func (h *Hub) pipelineEnded(p *Pipeline) {
	why := ended(p)
	h.mu.Lock()
	if why != nil {
		h.stopped[p.key] = why
	}
	if h.pipes[p.pk()] == p {
		delete(h.pipes, p.pk())
	}
	vs := make([]*viewer, 0, len(p.viewers))
	for id, v := range p.viewers {
		vs = append(vs, v)
		delete(h.viewers, id)
		delete(p.viewers, id)
	}
	h.mu.Unlock()
	for _, v := range vs {
		if v.pc != nil {
			go v.close()
		}
	}
}

// Stopped is why the last pipeline of key ended by itself (a refusal: the
// source failed, or sent no picture), until a pipeline of key sends a
// picture again; nil when none did. A viewer's page learns from it why its
// pane shows nothing.
func (h *Hub) Stopped(key string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stopped[key]
}

// sent forgets why key's pipeline last stopped: one sent a picture.
func (h *Hub) sent(key string) {
	h.mu.Lock()
	delete(h.stopped, key)
	h.mu.Unlock()
}

// targetBitrate is the encoder target for p: the lowest congestion-control
// target among its connected viewers, within the configured bounds.
func (h *Hub) targetBitrate(p *Pipeline) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := 0
	for _, v := range p.viewers {
		if t := v.targetBitrate(); t > 0 && (r == 0 || t < r) {
			r = t
		}
	}
	if p.tier == TierThumb {
		if r == 0 {
			r = h.o.ThumbBitrate
		}
		return min(max(r, min(h.o.MinBitrate, h.o.ThumbBitrate)), h.o.ThumbBitrate)
	}
	if r == 0 {
		r = h.o.StartBitrate
	}
	return min(max(r, h.o.MinBitrate), h.o.MaxBitrate)
}

// Leave drops the viewer with this id (a WHEP DELETE); false if unknown.
func (h *Hub) Leave(viewerID string) bool {
	h.mu.Lock()
	v := h.viewers[viewerID]
	h.mu.Unlock()
	if v == nil {
		return false
	}
	h.leave(v, "left")
	return true
}

// Stats is the running pipeline of key, if any: its full tier's, or its
// thumbnail tier's when only thumbnails of key are watched. When viewers
// with different codecs watch key at that tier, it is the H.264 one. Its
// Viewers counts the viewers of key at every tier and codec (Pipelines
// lists each pipeline on its own).
func (h *Hub) Stats(key string) (PipelineStats, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, t := range []Tier{TierFull, TierThumb} {
		for _, c := range []Codec{CodecH264, CodecVP8} {
			if p := h.pipes[pipeKey{key, c, t}]; p != nil {
				n += len(p.viewers)
			}
		}
	}
	for _, t := range []Tier{TierFull, TierThumb} {
		for _, c := range []Codec{CodecH264, CodecVP8} {
			if p := h.pipes[pipeKey{key, c, t}]; p != nil {
				return p.stats(n), true
			}
		}
	}
	return PipelineStats{}, false
}

// Pipelines lists the running pipelines, by key, tier and codec.
func (h *Hub) Pipelines() []PipelineStats {
	h.mu.Lock()
	out := make([]PipelineStats, 0, len(h.pipes))
	for _, p := range h.pipes {
		out = append(out, p.stats(len(p.viewers)))
	}
	h.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		if out[i].Tier != out[j].Tier {
			return out[i].Tier < out[j].Tier
		}
		return out[i].Codec < out[j].Codec
	})
	return out
}

// Sources counts the targets whose source is open (one each, whatever
// the number of its tiers, codecs and viewers).
func (h *Hub) Sources() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sources)
}

// SourceOpens counts the times the source of key was opened since the hub
// was made.
func (h *Hub) SourceOpens(key string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.opens[key]
}

// acquire is a subscriber at tier t of the shared source of key, opening
// the source (with open) if none is open. One caller at a time opens it
// (open runs without the hub's lock); callers arriving meanwhile wait and
// share it.
func (h *Hub) acquire(ctx context.Context, key string, t Tier, open OpenFunc) (*sub, error) {
	var u *sub
	done, err := claim(ctx, h, key, h.srcOpening, func() bool {
		if s := h.sources[key]; s != nil {
			u = s.newSub(t)
		}
		return u != nil
	})
	if err != nil || done == nil {
		return u, err
	}
	defer done()
	src, err := open(ctx)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		_ = src.Close()
		return nil, errors.New("rtc: hub closed")
	}
	h.opens[key]++
	s := newShared(h, key, src)
	h.sources[key] = s
	return s.newSub(t), nil
}

// release drops subscriber u; the last one of its source closes it.
func (h *Hub) release(u *sub) {
	s := u.s
	h.mu.Lock()
	delete(s.subs, u)
	last := len(s.subs) == 0
	if last && h.sources[s.key] == s {
		delete(h.sources, s.key)
	}
	s.setRate()
	h.mu.Unlock()
	if last {
		s.stop()
	}
}

// sourceEnded forgets a source that failed, so that the next viewer opens
// the target anew; its subscribers end with its error.
func (h *Hub) sourceEnded(s *sharedSource) {
	h.mu.Lock()
	if h.sources[s.key] == s {
		delete(h.sources, s.key)
	}
	h.mu.Unlock()
}

// Viewers counts the viewers of every pipeline.
func (h *Hub) Viewers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.viewers)
}

// Close drops every viewer, stops every pipeline and waits for them. Offers
// made after Close fail.
func (h *Hub) Close() error {
	h.mu.Lock()
	h.closed = true
	vs := make([]*viewer, 0, len(h.viewers))
	for _, v := range h.viewers {
		vs = append(vs, v)
	}
	h.mu.Unlock()
	for _, v := range vs {
		h.leave(v, "hub closed")
	}
	h.mu.Lock()
	ps := make([]*Pipeline, 0, len(h.pipes))
	for k, p := range h.pipes {
		ps = append(ps, p)
		delete(h.pipes, k)
	}
	h.mu.Unlock()
	for _, p := range ps {
		p.stop()
	}
	h.cancel()
	if h.tcpMux != nil {
		// Every viewer is gone: this ends their ICE-TCP connections and
		// closes the listener.
		if err := h.tcpMux.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			return fmt.Errorf("rtc: close the ICE-TCP listener: %w", err)
		}
	}
	return nil
}

// newID is a random viewer id, unguessable so that a DELETE names only the
// caller's own viewer.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// claim makes the caller the one opener of k: it waits while another
// caller opens k (opening[k]), and answers a nil done when found (run
// under h.mu) says what k needs is there. Otherwise the caller opens k
// without the hub's lock and calls done when finished, which wakes the
// callers waiting meanwhile.
func claim[K comparable](ctx context.Context, h *Hub, k K, opening map[K]chan struct{}, found func() bool) (done func(), err error) {
	h.mu.Lock()
	for {
		if h.closed {
			h.mu.Unlock()
			return nil, errors.New("rtc: hub closed")
		}
		if found() {
			h.mu.Unlock()
			return nil, nil
		}
		wait, busy := opening[k]
		if !busy {
			break
		}
		h.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		h.mu.Lock()
	}
	ch := make(chan struct{})
	opening[k] = ch
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(opening, k)
		h.mu.Unlock()
		close(ch)
	}, nil
}

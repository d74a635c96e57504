package cdp

import (
	"math"
	"strconv"
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// A ref's key is "<document generation>:<backendNodeId>". Backend node ids
// are counted per renderer process, and a navigation may move the tab to a
// fresh process that counts from 1 again: without the generation an old ref
// could name an unrelated node of the new page. The generation goes up on
// every main-frame navigation (Page.frameNavigated), so every ref of an
// earlier document is stale_ref, never a guess.

// watchDocument counts the main frame's navigations until the tab goes.
func (t *Tab) watchDocument() {
	events, cancel := t.sess.Subscribe("Page.frameNavigated")
	go func() {
		defer cancel()
		for {
			select {
			case v, ok := <-events:
				if !ok {
					return
				}
				var e struct {
					Frame struct {
						ParentID string `json:"parentId"`
					} `json:"frame"`
				}
				if jsonv2.Unmarshal(v, &e) == nil && e.Frame.ParentID == "" {
					gen := t.gen.Add(1)
					t.infoStale.Store(true)
					// The frames of the document that went went with it.
					t.detach(t.frames.forget(gen))
				}
			case <-t.sess.gone:
				t.detach(t.frames.forget(math.MaxInt64))
				return
			}
		}
	}()
}

// nodeKey is the ref key of a backend node in document generation gen.
func nodeKey(gen int64, backendID int64) string {
	return strconv.FormatInt(gen, 10) + ":" + strconv.FormatInt(backendID, 10)
}

// parseKey splits a ref key; ok is false for a key this package did not make.
func parseKey(key string) (gen, backendID int64, ok bool) {
	g, id, found := strings.Cut(key, ":")
	if !found {
		return 0, 0, false
	}
	gen, err1 := strconv.ParseInt(g, 10, 64)
	backendID, err2 := strconv.ParseInt(id, 10, 64)
	return gen, backendID, err1 == nil && err2 == nil
}

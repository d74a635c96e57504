package cdp

import (
	"github.com/chromedp/cdproto/domsnapshot"
)

// What a script made clickable. The accessibility tree knows a <button>,
// but not a <div onclick> or an element with a click listener added by
// addEventListener: Chromium shows those as generic containers with no
// name. One DOMSnapshot.captureSnapshot per renderer process and snapshot
// (never a call per node) tells them apart: its isClickable marks every
// element with a click, mousedown or mouseup listener (an onclick
// attribute is one), and the computed cursor of each laid-out node shows
// where a page styled an element as clickable (cursor: pointer) without a
// listener of its own, say behind a delegating listener on an ancestor.
// The same capture lists the documents of the process's frames, which is
// how a snapshot finds its same-process frames (frames.go).

// domSnapshotParams asks for the one computed style the pass reads.
var domSnapshotParams = &domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{"cursor"}}

// domFacts is what a snapshot takes from a DOMSnapshot capture.
type domFacts struct {
	clickable map[int64]bool   // backend node ids
	frames    map[int64]string // frame id of the document inside an <iframe>, by the iframe's backend node id
}

// domDocument is the part of a captured document read here (decoding the
// rest, bounds and text boxes, is skipped by leaving it out).
type domDocument struct {
	FrameID int `json:"frameId"`
	Nodes   struct {
		ParentIndex          []int   `json:"parentIndex"`
		NodeType             []int   `json:"nodeType"`
		NodeName             []int   `json:"nodeName"`
		BackendNodeID        []int64 `json:"backendNodeId"`
		ContentDocumentIndex struct {
			Index []int `json:"index"`
			Value []int `json:"value"`
		} `json:"contentDocumentIndex"`
		IsClickable struct {
			Index []int `json:"index"`
		} `json:"isClickable"`
	} `json:"nodes"`
	Layout struct {
		NodeIndex []int   `json:"nodeIndex"`
		Styles    [][]int `json:"styles"`
	} `json:"layout"`
}

type domCapture struct {
	Documents []domDocument `json:"documents"`
	Strings   []string      `json:"strings"`
}

// notClickable are elements whose listeners say nothing of what a person
// clicks: a page's top-level listeners sit there. A <label> is clickable
// by its activation behaviour (Chromium marks every one), but what it
// activates is its control, which has a ref of its own and the label's
// text as its name: a second ref for it is noise in -i.
var notClickable = map[string]bool{"HTML": true, "BODY": true, "#document": true, "LABEL": true}

// facts reads a capture: the clickable elements and the frames' owners.
func (c *domCapture) facts() domFacts {
	f := domFacts{clickable: map[int64]bool{}, frames: map[int64]string{}}
	str := func(i int) string {
		if i >= 0 && i < len(c.Strings) {
			return c.Strings[i]
		}
		return ""
	}
	for _, d := range c.Documents {
		n := &d.Nodes
		at := func(i int) (int64, string, bool) {
			if i < 0 || i >= len(n.BackendNodeID) || i >= len(n.NodeName) {
				return 0, "", false
			}
			name := str(n.NodeName[i])
			return n.BackendNodeID[i], name, !notClickable[name]
		}
		for _, i := range n.IsClickable.Index {
			if id, _, ok := at(i); ok {
				f.clickable[id] = true
			}
		}
		// cursor: pointer on an element whose parent element's cursor is
		// not pointer (else it is inherited, or the parent is the control).
		pointer := make(map[int]bool, 8)
		for j, ni := range d.Layout.NodeIndex {
			if j < len(d.Layout.Styles) && len(d.Layout.Styles[j]) > 0 && str(d.Layout.Styles[j][0]) == "pointer" {
				pointer[ni] = true
			}
		}
		for ni := range pointer {
			if ni >= len(n.NodeType) || n.NodeType[ni] != 1 {
				continue
			}
			if p := parent(n.ParentIndex, ni); p >= 0 && pointer[p] {
				continue
			}
			if id, _, ok := at(ni); ok {
				f.clickable[id] = true
			}
		}
		cd := &n.ContentDocumentIndex
		for k, i := range cd.Index {
			if k >= len(cd.Value) || i >= len(n.BackendNodeID) {
				continue
			}
			if doc := cd.Value[k]; doc >= 0 && doc < len(c.Documents) {
				f.frames[n.BackendNodeID[i]] = str(c.Documents[doc].FrameID)
			}
		}
	}
	return f
}

func parent(parents []int, i int) int {
	if i < len(parents) {
		return parents[i]
	}
	return -1
}

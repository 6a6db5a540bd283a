package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/internal/transcript"
)

// A failure's exchange drawn as a sequence diagram: wirecheck's lane on
// the left, the server's on the right, one arrow per frame, the frame the
// verdict is about in red. It is inline SVG built from numbers this file
// computes; the only server text in it is each arrow's label, which
// html/template escapes like any other text.

const (
	diagramTail   = 20  // frames drawn: the end of the exchange is where the failure is
	diagramWidth  = 760 // px
	diagramRow    = 30  // px per frame
	diagramTop    = 44  // px above the first frame (lane titles)
	diagramLabel  = 64  // runes of a frame shown on its arrow
	clientLane    = 170 // x of wirecheck's lifeline
	serverLane    = 640 // x of the server's lifeline
	arrowHeadSize = 7
)

type htmlDiagram struct {
	Width, Height, ClientX, ServerX, LaneBottom int
	Caption                                     string
	Frames                                      []htmlFrame
}

// htmlFrame is one row: an arrow between the lanes (sent, received), a
// mark on the server's lane (stderr) or a note across both.
type htmlFrame struct {
	Dir                    string
	Y, TextY               int
	X1, X2, LabelX, CrossX int
	Head                   string // the arrowhead's polygon points
	Anchor, Time, Label    string
	Failing, Arrow, Mark   bool
	// Cross is the failing frame's mark: "✗ failing", or on a request that
	// got no answer "✗ no answer within 10s".
	Cross, CrossAnchor string
	CrossDY            int
	Unanswered         bool
}

// diagram lays out the last frames of a failing finding's transcript, or,
// when the frame the finding is about lies before them, the frames around
// it.
func diagram(f Finding) *htmlDiagram {
	if len(f.Transcript) == 0 {
		return nil
	}
	shown, _ := tail(f.Transcript, diagramTail)
	at := judged(f)
	if len(at) > 0 && at[0] < len(f.Transcript)-len(shown) {
		from := max(0, at[0]-3)
		shown = f.Transcript[from:min(len(f.Transcript), from+diagramTail)]
	}
	failing := map[int]bool{}
	for _, e := range shown {
		if slices.Contains(f.Frames, e.Seq) {
			failing[e.Seq] = true
		}
	}
	fallback := -1
	if len(failing) == 0 {
		fallback = failingFrame(shown, f.Actual)
	}
	d := &htmlDiagram{
		Width:   diagramWidth,
		Height:  diagramTop + len(shown)*diagramRow + 12,
		ClientX: clientLane,
		ServerX: serverLane,
		Caption: fmt.Sprintf("Sequence diagram (%d of %d frames)", len(shown), len(f.Transcript)),
	}
	if len(shown) == len(f.Transcript) {
		d.Caption = fmt.Sprintf("Sequence diagram (%d frames)", len(shown))
	} else if shown[len(shown)-1].Seq == f.Transcript[len(f.Transcript)-1].Seq {
		d.Caption = fmt.Sprintf("Sequence diagram (last %d of %d frames)", len(shown), len(f.Transcript))
	}
	d.LaneBottom = d.Height - 4
	for i, e := range shown {
		y := diagramTop + i*diagramRow + diagramRow/2 + 6
		fr := htmlFrame{
			Dir:     string(e.Dir),
			Y:       y,
			TextY:   y - 5,
			Time:    fmt.Sprintf("%.1fms", e.OffsetMS),
			Label:   frameLabel(e),
			Failing: failing[e.Seq] || i == fallback,
			CrossX:  serverLane + 14,
			Cross:   "✗ failing",
			CrossDY: 4, CrossAnchor: "start",
		}
		if fr.Failing && e.Dir == transcript.Sent && f.Unanswered != "" {
			// Under the request's arrow, by the server's lane, where the
			// answer should have come from (the margin right of the lane
			// is too narrow for it).
			fr.Cross = "✗ no answer within " + line(f.Unanswered, 32)
			fr.CrossX, fr.CrossDY, fr.CrossAnchor = serverLane-8, 14, "end"
			fr.Unanswered = true
		}
		switch e.Dir {
		case transcript.Sent:
			fr.Arrow, fr.X1, fr.X2 = true, clientLane, serverLane
		case transcript.Received:
			fr.Arrow, fr.X1, fr.X2 = true, serverLane, clientLane
		case transcript.Stderr:
			fr.Mark, fr.X1, fr.X2 = true, serverLane-6, serverLane+6
		}
		switch {
		case fr.Arrow:
			fr.LabelX, fr.Anchor = (clientLane+serverLane)/2, "middle"
			fr.Head = arrowHead(fr.X1, fr.X2, y)
		case fr.Mark:
			fr.LabelX, fr.Anchor, fr.TextY = serverLane-12, "end", y+4
		default:
			fr.LabelX, fr.Anchor, fr.TextY = (clientLane+serverLane)/2, "middle", y+4
		}
		d.Frames = append(d.Frames, fr)
	}
	return d
}

func arrowHead(x1, x2, y int) string {
	dir := 1
	if x2 < x1 {
		dir = -1
	}
	back := x2 - dir*arrowHeadSize*2
	return fmt.Sprintf("%d,%d %d,%d %d,%d", x2, y, back, y-arrowHeadSize, back, y+arrowHeadSize)
}

// judged are the indexes in f.Transcript of the frames f is about
// (Finding.Frames), in order.
func judged(f Finding) []int {
	var at []int
	for i, e := range f.Transcript {
		if slices.Contains(f.Frames, e.Seq) {
			at = append(at, i)
		}
	}
	return at
}

// frameLabel is one line of a frame, cut to fit between the lanes.
func frameLabel(e transcript.Entry) string {
	s := line(e.Text, capLine)
	if utf8.RuneCountInString(s) > diagramLabel {
		r := []rune(s)
		s = string(r[:diagramLabel-1]) + "…"
	}
	if e.Dir == transcript.Stderr {
		s = "stderr: " + s
	}
	return s
}

// failingFrame picks the frame the verdict is about: the last one the
// finding's Actual quotes (the same text, or for JSON the same members),
// else the last thing the server said (a frame or a stderr line), else the
// last frame.
func failingFrame(es []transcript.Entry, actual string) int {
	if a := strings.TrimSpace(actual); a != "" {
		var want any
		isJSON := json.Unmarshal([]byte(a), &want) == nil
		for i := len(es) - 1; i >= 0; i-- {
			if es[i].Dir != transcript.Received && es[i].Dir != transcript.Stderr {
				continue
			}
			if !strings.Contains(a, "\n") && strings.Contains(es[i].Text, a) {
				return i
			}
			var got any
			if isJSON && json.Unmarshal([]byte(es[i].Text), &got) == nil && jsonHolds(got, want) {
				return i
			}
		}
	}
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Dir == transcript.Received || es[i].Dir == transcript.Stderr {
			return i
		}
	}
	return len(es) - 1
}

// jsonHolds reports whether got has every member of want with the same
// value (objects compared member by member, anything else whole).
func jsonHolds(got, want any) bool {
	w, ok := want.(map[string]any)
	if !ok {
		return reflect.DeepEqual(got, want)
	}
	g, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, wv := range w {
		gv, ok := g[k]
		if !ok || !jsonHolds(gv, wv) {
			return false
		}
	}
	return true
}

package session

import (
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// hook lets a transport that judges what it sees below the peer (an HTTP
// status, a content type) report through the peer's mapping of checks to
// the current scenario's rules, and note the exchange in the transcript.
// Its verdicts carry the transcript line of the last thing noted.
func hook(t transport.Transport, p *peer.Peer, rec *transcript.Recorder) {
	h, ok := t.(transport.Hooked)
	if !ok {
		return
	}
	h.SetHooks(transport.Hooks{
		Check: func(check string, v verdict.Verdict, msg, expected, actual string) {
			p.Check(check, v, rec.Len()-1, msg, expected, actual)
		},
		Note: func(text string) int { return rec.Add(transcript.Note, []byte(text)) },
	})
}

package chromium

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// connectTimeout bounds reaching somebody else's browser when the verb's
// context has no earlier deadline.
const connectTimeout = 20 * time.Second

// connect reaches the browser of a profile whose provider is somebody
// else's (key.Provider: cdp, cloud:<name>) at key.Connect: no launch, no
// directory of ours. The profile's tabs live in a browser context of ours
// when the endpoint makes one (Target.createBrowserContext), else in its
// default context (logged: the lease is still per tab; on stop the tabs we
// opened there are closed, no other). An endpoint that
// does not answer is provider_unreachable, a keyed provider's 401 or 403
// key_rejected; neither names anything but the provider and the endpoint
// as kept (the URL dialled may carry a key).
func (p *Pool) connect(ctx context.Context, key kind.BrowserKey) (*browser, error) {
	row, ok := provider.Lookup(key.Provider)
	if !ok || !row.Remote() {
		return nil, target.Refuse(target.CodeBadRequest, "profile %s has provider %s, which is no remote browser", key.Profile, target.Echo(key.Provider))
	}
	if key.Connect == "" {
		return nil, target.Refuse(target.CodeInternal, "profile %s of provider %s has no URL to connect to", key.Profile, row.Name)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, connectTimeout)
		defer cancel()
	}
	shown := key.Endpoint
	if shown == "" {
		shown = row.DefaultEndpoint
	}
	fail := func(err error) error {
		var hs *cdp.HandshakeStatus
		if row.KeyScope != "" && errors.As(err, &hs) && (hs.Code == http.StatusUnauthorized || hs.Code == http.StatusForbidden) {
			return target.Refuse(target.CodeKeyRejected, "provider %s refused the key the daemon holds for it (HTTP %d): set the right one with vibespace-browser key set %s", row.Name, hs.Code, row.Name).
				With("provider", row.Name).With("endpoint", shown).With("status", hs.Code)
		}
		// The cause is not quoted: a dial error may repeat the URL, which
		// may carry the key.
		why := "it did not answer"
		if errors.As(err, &hs) {
			why = hs.Error()
		} else if ctx.Err() != nil {
			why = "it did not answer in time"
		}
		return target.Refuse(target.CodeProviderUnreachable, "the browser of profile %s (provider %s) at %s was not reached: %s", key.Label, row.Name, shown, why).
			With("provider", row.Name).With("endpoint", shown)
	}
	wsURL, err := cdp.ResolveEndpoint(ctx, key.Connect)
	if err != nil {
		return nil, fail(err)
	}
	b, err := cdp.Connect(ctx, wsURL, cdp.DialOptions{Logger: p.o.Logger, Calls: p.o.Calls})
	if err != nil {
		return nil, fail(err)
	}
	br := &browser{b: b, profile: key.Profile, label: key.Label, users: map[string]bool{key.Session: true},
		provider: row.Name, endpoint: shown, last: time.Now()}
	def, err := b.NewContext(ctx)
	if err != nil {
		p.o.Logger.Warn("the endpoint refused a browser context of ours: the profile's tabs open in its default context", "provider", row.Name, "endpoint", shown, "err", err)
		if def, err = b.DefaultContext(ctx); err != nil {
			b.Close()
			return nil, fail(err)
		}
		br.defaultCtx = true
	}
	br.def = def
	p.o.Logger.Info("connected to a browser of provider", "provider", row.Name, "profile", key.Profile, "endpoint", shown, "own_context", !br.defaultCtx)
	p.adopt(br)
	return br, nil
}

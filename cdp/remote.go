package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
)

// Connect reaches a browser this process did not start, at its
// browser-level DevTools WebSocket (ws:// or wss://), and waits until it
// answers Browser.getVersion (bounded by ctx, else DefaultCallTimeout).
// The Browser it answers is remote: PID is 0, Exited closes when the
// connection ends, and Close only disconnects — it never asks the browser
// to close and never signals a process. An HTTP status the endpoint
// answers the handshake with (a 401 of a service's bad token) is in the
// error's chain as a *HandshakeStatus.
func Connect(ctx context.Context, wsURL string, o DialOptions) (*Browser, error) {
	ctx, cancel := orTimeout(ctx, DefaultCallTimeout)
	defer cancel()
	conn, err := Dial(ctx, wsURL, o)
	if err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Browser{conn: conn, log: log, exited: make(chan struct{}), remote: true}
	go func() {
		<-conn.Done()
		close(b.exited)
	}()
	if err := conn.Call(ctx, "Browser.getVersion", nil, nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cdp: the endpoint does not answer as a browser: %w", err)
	}
	return b, nil
}

// Remote reports whether b is a browser this process did not start.
func (b *Browser) Remote() bool { return b.remote }

// HandshakeStatus is the HTTP status a DevTools endpoint answered the
// WebSocket handshake with instead of 101.
type HandshakeStatus struct{ Code int }

func (h *HandshakeStatus) Error() string {
	return fmt.Sprintf("the endpoint answered HTTP %d %s", h.Code, http.StatusText(h.Code))
}

// ResolveEndpoint turns a DevTools endpoint into its browser WebSocket: a
// ws:// or wss:// URL is answered as it is; an http(s) base is asked its
// /json/version (bounded by ctx, else DefaultCallTimeout) for
// webSocketDebuggerUrl.
func ResolveEndpoint(ctx context.Context, endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("cdp: endpoint: %w", err)
	}
	switch u.Scheme {
	case "ws", "wss":
		return endpoint, nil
	case "http", "https":
	default:
		return "", fmt.Errorf("cdp: endpoint scheme %q is not ws, wss, http or https", u.Scheme)
	}
	ctx, cancel := orTimeout(ctx, DefaultCallTimeout)
	defer cancel()
	u.Path = strings.TrimSuffix(u.Path, "/") + "/json/version"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("cdp: endpoint: %w", err)
	}
	resp, err := http.DefaultClient.Do(req) // bounded by ctx's deadline
	if err != nil {
		return "", fmt.Errorf("cdp: /json/version: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", &HandshakeStatus{Code: resp.StatusCode}
	}
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&v); err != nil {
		return "", fmt.Errorf("cdp: /json/version: %w", err)
	}
	if v.WS == "" {
		return "", errors.New("cdp: /json/version names no webSocketDebuggerUrl")
	}
	return v.WS, nil
}

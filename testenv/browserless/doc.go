// Package browserless is a stand-in for Browserless's hosted service
// (browserless.io, v2) in front of a local Chromium, speaking the connect
// protocol its documentation gives for CDP libraries, so the cloud:browserless
// provider is tested against that protocol and not against our own idea of it.
//
// # What the service documents (docs.browserless.io, read 2026-12)
//
//   - The connect URL for CDP libraries (Puppeteer's browserWSEndpoint,
//     Playwright's chromium.connectOverCDP) is the regional base with the API
//     token as a query parameter:
//     wss://production-sfo.browserless.io?token=YOUR_API_TOKEN (also written
//     …/?token=…; regions production-sfo, production-lon, production-ams).
//     Other launch options ride along as more query parameters (&proxy=…,
//     &launch={json}). The same base with /chromium names the browser
//     explicitly; /chromium/playwright is Playwright's own (non-CDP) wire
//     protocol, which this stand-in does not speak.
//   - "Every connection carries it as a ?token= query parameter"; invalid
//     tokens "result in HTTP 401/403 errors". The open-source server answers
//     a WebSocket upgrade that is not authorised by writing an HTTP 401 on
//     the socket with the plain-text body "Bad or missing authentication."
//     and no upgrade; 403 is the hosted service's answer for an account out
//     of credits or access, which a stand-in need not model.
//   - /json/version is documented only for Private Deployment and Enterprise
//     Docker plans, not for the shared hosted service, so it is not served
//     here (a client of the hosted service cannot rely on it: the provider
//     must dial the connect URL directly).
//   - Each connection is a session of its own: a fresh browser is started for
//     it and closed when the connection ends ("always close to release the
//     session"), so nothing is shared between two connections.
//
// # What this package does
//
// Start listens on 127.0.0.1:0. A request at "/" or "/chromium" with a
// wrong or missing token gets 401 and that body, whatever it asks for, and
// no browser is started. A WebSocket upgrade with the right token starts a
// fresh headless Chromium (--remote-debugging-port=0 on 127.0.0.1, a
// temporary --user-data-dir, the flags the repo passes every browser),
// dials its browser-level DevTools WebSocket, completes the client's
// upgrade and relays the WebSocket frames both ways unchanged (no extension
// is negotiated on either leg, so a client's masked frames are valid for
// Chromium and Chromium's for the client). When either side ends, the
// Chromium's process group is killed and reaped and its directory removed.
// Connections records every attempt, for tests to check what was started.
//
// The token is never logged.
package browserless

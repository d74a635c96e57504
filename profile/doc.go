// Package profile is the browser profile registry and every session's
// attachment set: which persistent user-data-dirs exist, which of them a
// session has attached under which handles, and — for each browser command
// — which one it acts on.
//
// # The registry
//
// Open reads stateDir/profiles.json (created on the first change; written
// atomically: a temporary file in the same directory, mode 0600, fsync,
// rename, directory fsync). A file that does not parse or validate is an
// error naming it and is left untouched. A profile is an id minted here
// ("bp-" and 8 lowercase hex digits from crypto/rand, never reused) and a
// free-text label for people. Its user-data-dir is stateDir/profiles/<id>,
// mode 0700: the label never reaches a path or an argv.
//
// # Backends
//
// A profile's browser runs in the CDP browser (Backend "", the default) or
// as a desktop app (BackendDesktopApp, made by NewApp): a real Chromium on
// a display, a window target with no DevTools. A desktop app's profile
// also keeps how it starts (App: its address, its window's size, its
// mode). The label is unique across backends.
//
// # Attachment sets and handles
//
// A session holds an attachment set, exactly one member of which is the
// default. Use attaches a profile under a handle (an alias, else a slug of
// the label, else the id); NewChild mints a child context "bk-<key>.<n>" for
// a sub-agent, keyed by SessionKey(session), and reaped with the parent by
// that prefix; Detach removes attachments; Pin moves the default. The set,
// and what each session has been told about it, persist in profiles.json,
// so a daemon restart keeps them.
//
// Resolve is the pure decision of what a command acts on (table in its doc):
// an empty set is the session's own ephemeral context; one attachment
// needs no handle; two or more and a bare command is profile_required with
// every handle and the default; a registered profile the session has not
// attached is profile_not_attached, never attached silently; a filesystem
// path is path_not_handle carrying `vibespace-browser new <label>`. After a
// change by someone other than the session, the next command is refused
// once with profile_changed {was, now, handles}; Choice.Line names what a
// command acted on, for every answer.
//
// # Concurrency
//
// A Registry is safe for concurrent use. One mutex guards its state; the
// only I/O done while holding it is the atomic write of profiles.json.
// Creating directories happens outside it. One process owns a state
// directory (the daemon holds its lock); Registry does not lock the file
// against other processes.
package profile

// Package vibespace_test holds repository-wide checks: every package has one
// package comment, and the dependency rules of the layout (README.md) hold.
package vibespace_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vibespace/vibespace"

type pkgInfo struct {
	dir     string
	docs    []string        // files carrying a package comment
	imports map[string]bool // imports of non-test files
}

// packages parses every non-test Go file of the repository (imports and
// comments only).
func packages(t *testing.T) map[string]*pkgInfo {
	t.Helper()
	out := map[string]*pkgInfo{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		p := out[dir]
		if p == nil {
			p = &pkgInfo{dir: dir, imports: map[string]bool{}}
			out[dir] = p
		}
		if f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Package ") || f.Doc != nil && f.Name.Name == "main" {
			p.docs = append(p.docs, filepath.Base(path))
		}
		for _, im := range f.Imports {
			v, _ := strconv.Unquote(im.Path.Value)
			p.imports[v] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEveryPackageHasOneDocComment(t *testing.T) {
	for dir, p := range packages(t) {
		if len(p.docs) != 1 {
			t.Errorf("%s: %d files with a package comment (%v), want exactly 1", dir, len(p.docs), p.docs)
		}
	}
}

// The core (the files directly in daemon/) keeps targets, leases and the
// verb table; everything else is a stage or lives with its kind. Its size
// is a budget: coreGoalLines and coreGoalMethods are where it belongs;
// coreMaxLines and coreMaxMethods are the ceiling today, lowered with
// every move out of it and never raised without a commit that says why.
const (
	coreGoalLines, coreGoalMethods = 5000, 120
	coreMaxLines, coreMaxMethods   = 4939, 93
)

func TestCoreSize(t *testing.T) {
	files, err := filepath.Glob("daemon/*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines, methods := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.Lines(string(b)) {
			lines++
			if strings.HasPrefix(l, "func (d *Daemon) ") {
				methods++
			}
		}
	}
	t.Logf("the core: %d non-test lines (ceiling %d, goal %d), %d methods on *Daemon (ceiling %d, goal %d)",
		lines, coreMaxLines, coreGoalLines, methods, coreMaxMethods, coreGoalMethods)
	if lines > coreMaxLines {
		t.Errorf("the core holds %d non-test lines, over its ceiling of %d: move what is no core promise to a stage or its kind", lines, coreMaxLines)
	}
	if methods > coreMaxMethods {
		t.Errorf("*Daemon has %d methods, over its ceiling of %d", methods, coreMaxMethods)
	}
}

// rules: a package (by directory prefix) must not import these (by import
// path prefix). Paths are relative to the module.
var forbidden = map[string][]string{
	"target":  {module + "/"}, // the shared model imports no backend
	"atspi":   {module + "/x11", module + "/daemon", module + "/lease", module + "/cdp", "github.com/urfave/cli"},
	"x11":     {module + "/atspi", module + "/daemon", module + "/lease", module + "/cdp", "github.com/urfave/cli"},
	"cdp":     {module + "/x11", module + "/atspi", module + "/daemon", module + "/lease", "github.com/urfave/cli"},
	"lease":   {module + "/x11", module + "/atspi", module + "/cdp", module + "/testenv", module + "/daemon", "github.com/urfave/cli"},
	"testenv": {module + "/atspi", module + "/daemon", module + "/lease", module + "/cdp", "github.com/urfave/cli"},
	"xvfb":    {module + "/atspi", module + "/daemon", module + "/lease", module + "/cdp", module + "/testenv", "github.com/urfave/cli"},
	"xpra":    {module + "/atspi", module + "/daemon", module + "/lease", module + "/cdp", module + "/testenv", "github.com/urfave/cli"},
	"daemon":  {"github.com/urfave/cli"},
	// the live view sees targets through the hands the core lends it (daemon.LiveHands) only
	"daemon/live": {module + "/x11", module + "/atspi", module + "/cdp", module + "/xvfb", module + "/xpra", module + "/testenv",
		module + "/daemon/native", module + "/daemon/chromium"},
	// the seam between the core and its backends is a leaf: the shared
	// model and the wire types, nothing else of ours
	"daemon/kind": {module + "/x11", module + "/atspi", module + "/cdp", module + "/rtc", module + "/capture",
		module + "/testenv", module + "/xvfb", module + "/xpra", module + "/lease", module + "/profile", module + "/daemon/native",
		module + "/daemon/chromium", module + "/daemon/live"},
	// the user's desktop's gate sees its road through the seam alone: no
	// backend, no live view (and never the core: coreImporters)
	"daemon/yourdesktop": {module + "/x11", module + "/atspi", module + "/cdp", module + "/rtc", module + "/capture",
		module + "/testenv", module + "/xvfb", module + "/xpra", module + "/portal", module + "/daemon/native",
		module + "/daemon/chromium", module + "/daemon/live"},
	// the display registry sees its displays through the seam alone: no
	// backend, no live view (and never the core: coreForbidden)
	"daemon/displays": {module + "/x11", module + "/atspi", module + "/cdp", module + "/rtc", module + "/capture",
		module + "/testenv", module + "/xvfb", module + "/xpra", module + "/portal", module + "/daemon/native",
		module + "/daemon/chromium", module + "/daemon/live"},
	// the socket serves a handler it declares: the wire and the shared
	// model, no backend, no live view (and never the core: coreImporters)
	"daemon/socket": {module + "/x11", module + "/atspi", module + "/cdp", module + "/rtc", module + "/capture",
		module + "/testenv", module + "/xvfb", module + "/xpra", module + "/lease", module + "/profile", module + "/portal",
		module + "/daemon/native", module + "/daemon/chromium", module + "/daemon/live"},
	// the verifier's decisions are pure: the shared model and the seam's
	// types, no backend and no core
	"daemon/effect": {module + "/x11", module + "/atspi", module + "/cdp", module + "/rtc", module + "/capture",
		module + "/testenv", module + "/xvfb", module + "/xpra", module + "/lease", module + "/profile", module + "/daemon/native",
		module + "/daemon/chromium", module + "/daemon/live"},
	// the profile registry is a pure decision over files: no backend at all
	"profile": {module + "/x11", module + "/atspi", module + "/cdp", module + "/daemon", module + "/lease",
		module + "/testenv", module + "/rtc", module + "/capture", "github.com/urfave/cli"},
	// the provider table is a leaf: the shared model and nothing else of ours
	"provider": {module + "/x11", module + "/atspi", module + "/cdp", module + "/daemon", module + "/lease", module + "/profile",
		module + "/testenv", module + "/rtc", module + "/capture", module + "/xvfb", module + "/xpra", "github.com/urfave/cli"},
	// the live view's media side knows frames and tracks, not the daemon
	"rtc":     {module + "/daemon", module + "/lease", module + "/atspi", "github.com/urfave/cli"},
	"capture": {module + "/daemon", module + "/lease", module + "/atspi", module + "/rtc", "github.com/urfave/cli"},
}

// allowed importers of testenv outside tests: the command lines' shared
// test helpers only (testSupport: packages no program links; the daemon's
// display is package xvfb, and testenv wraps it for tests).
var testenvImporters = testSupport

// testSupport are packages of test helpers that several test binaries of
// one command share (its tests are split into packages so that go test
// runs them side by side): only tests import them.
var testSupport = []string{"cmd/vibespace-window/internal/wintest", "cmd/vibespace-browser/internal/browsertest"}

// core is the daemon's core (the package itself, not its subpackages): it
// drives every kind of target through the seam (daemon/kind) alone, so it
// imports no backend, no live view and no media.
var core = struct {
	dir string
	bad []string
}{"daemon", []string{module + "/x11", module + "/atspi", module + "/cdp", module + "/rtc", module + "/capture",
	module + "/testenv", module + "/xvfb", module + "/xpra", module + "/daemon/native", module + "/daemon/chromium", module + "/daemon/live"}}

// coreImporters may import the core: its composition root, the live view
// (a client of the core, as the socket's clients are), and the served
// daemon of other packages' tests. Backends import the seam, never the core.
var coreImporters = append([]string{"cmd/vibespace-daemon", "daemon/live", "daemon/daemontest"}, testSupport...)

// coreForbidden never import the core, not even in a test's place: the
// core asks them through interfaces it declares (the user's desktop's
// gate, Config.Desktop; the profile words, Browsing; the tab words, Tabs),
// or they serve one they declare (the socket's Handler, which the core is;
// the display registry's Host, which the core lends it), or they see the
// daemon through stage.Env alone (the key words, over Env.Keys), or every
// client links them (the verbs' arguments, daemon/args), or the core asks
// them with facts it read itself (the provider law, over an Origin; a
// window's mode, daemon/modes), or lend them what they may see for one call
// (doctor's probe, a Machine), or keep what they hold under the core's lock
// (each session's last snapshot of a target, daemon/lastsnaps).
var coreForbidden = []string{"daemon/yourdesktop", "daemon/socket", "daemon/browsing", "daemon/displays", "daemon/keys", "daemon/tabs", "daemon/args", "daemon/providerlaw", "daemon/doctor", "daemon/modes", "daemon/lastsnaps"}

// onlyImports: of the packages of ours, these import only those listed
// (module-relative). The profile words see the daemon through the seam,
// the stages' shape and the verb table, the wire types and the profile,
// provider and shared models; the core asks them through its Browsing
// interface and lends them its hands (stage.Env.Hands, which the package
// asserts to its own Host). The tab words (Tabs, tabs.Host) likewise, and
// keep each session's current tab (daemon/current).
var onlyImports = map[string][]string{
	"daemon/browsing": {"daemon/args", "daemon/kind", "daemon/stage", "daemon/verb", "daemon/wire", "daemon/current",
		"profile", "provider", "target", "lease"},
	// The verifier looks at a target through what the core lends it
	// (stage.Sight) and judges with daemon/effect: no backend, no core
	// (it reads a verb's --no-verify of its arguments, daemon/args).
	"daemon/verifying": {"daemon/args", "daemon/effect", "daemon/kind", "daemon/stage", "daemon/wire", "target"},
	"daemon/tabs": {"daemon/args", "daemon/kind", "daemon/stage", "daemon/wire", "daemon/notice", "daemon/current",
		"profile", "provider", "target"},
	// The verbs' arguments are linked by every client: the wire, the verb
	// table and the shared model, nothing more.
	"daemon/args": {"daemon/wire", "daemon/verb", "target"},
}

func TestDependencyRules(t *testing.T) {
	pkgs := packages(t)
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		p := pkgs[dir]
		slash := filepath.ToSlash(dir)
		for prefix, bad := range forbidden {
			if slash != prefix && !strings.HasPrefix(slash, prefix+"/") {
				continue
			}
			for im := range p.imports {
				for _, b := range bad {
					if strings.HasPrefix(im, b) && !strings.HasPrefix(im, module+"/"+prefix) {
						t.Errorf("%s imports %s, which the layout forbids", dir, im)
					}
				}
			}
		}
		if slash == core.dir {
			// Everything the core links, through every package of ours it
			// imports.
			for im, via := range reach(pkgs, core.dir) {
				for _, b := range core.bad {
					if im == b || strings.HasPrefix(im, b+"/") {
						t.Errorf("the daemon's core links %s (through %s): it reaches backends through daemon/kind only", im, via)
					}
				}
			}
		}
		if only, ok := onlyImports[slash]; ok {
			for im := range p.imports {
				if rel, ours := strings.CutPrefix(im, module+"/"); ours && !slices.Contains(only, rel) {
					t.Errorf("%s imports %s: it may import only %v of ours", dir, im, only)
				}
			}
		}
		if hasPrefixAny(slash, coreForbidden) && p.imports[module+"/daemon"] {
			t.Errorf("%s imports the daemon's core, which asks it through an interface of its own and lends it what it needs", dir)
		}
		if p.imports[module+"/daemon"] && !hasPrefixAny(slash, coreImporters) {
			t.Errorf("%s imports the daemon's core (only %v may; a backend imports daemon/kind)", dir, coreImporters)
		}
		for _, ts := range testSupport {
			if p.imports[module+"/"+ts] {
				t.Errorf("%s imports %s, a package of test helpers, outside its tests", dir, ts)
			}
		}
		if p.imports[module+"/testenv"] && !hasPrefixAny(slash, testenvImporters) {
			t.Errorf("%s imports testenv outside its tests (allowed only in %v)", dir, testenvImporters)
		}
		if p.imports["github.com/urfave/cli/v2"] && !strings.HasPrefix(slash, "cmd/") {
			t.Errorf("%s imports urfave/cli: flags live in cmd/ only", dir)
		}
	}
}

// reach is every import path of ours that dir links, directly or through
// other packages of ours, each with the package that imports it.
func reach(pkgs map[string]*pkgInfo, dir string) map[string]string {
	seen := map[string]string{}
	var walk func(dir string)
	walk = func(dir string) {
		p := pkgs[filepath.FromSlash(dir)]
		if p == nil {
			return
		}
		for im := range p.imports {
			rel, ok := strings.CutPrefix(im, module+"/")
			if !ok {
				continue
			}
			if _, done := seen[im]; done {
				continue
			}
			seen[im] = dir
			walk(rel)
		}
	}
	walk(dir)
	return seen
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}

// TestNoMachinePaths keeps absolute paths of a developer's machine out of
// the tree (system paths of Debian packages are fine).
func TestNoMachinePaths(t *testing.T) {
	// Built at run time so that this file does not flag itself.
	var bad []string
	for _, dir := range []string{"work", "home", "root"} {
		bad = append(bad, "/"+dir+"/")
	}
	_ = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".py") || strings.HasSuffix(path, ".md") || path == "Makefile") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, s := range bad {
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains a machine path (%s…)", path, s)
			}
		}
		return nil
	})
}

// stagePackages are the packages of the verb path's stages: daemon/stage
// (a stage's shape), daemon/verb (the verb table) and every package under
// daemon/ that imports daemon/stage (budget, inflight, trace, marks,
// verbaudit, and any added later), found by scanning, each with why.
func stagePackages(t *testing.T, pkgs map[string]*pkgInfo) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{"daemon/stage", "daemon/verb"} {
		if pkgs[filepath.FromSlash(dir)] == nil {
			t.Fatalf("%s is gone: the stages' shape and the verb table live there", dir)
		}
		out[dir] = "the stages' own"
	}
	for dir, p := range pkgs {
		slash := filepath.ToSlash(dir)
		if strings.HasPrefix(slash, "daemon/") && p.imports[module+"/daemon/stage"] {
			out[slash] = "imports daemon/stage"
		}
	}
	return out
}

// TestStagesNeverImportTheCore: a stage is registered outside the core
// (cmd/vibespace-daemon/stages) and sees the daemon through stage.Env and
// stage.Call only, so no stage package links the core, directly or
// through another package. (The forbidden map above cannot say it: its
// rules are by prefix, and module+"/daemon" as a prefix forbids
// daemon/stage and daemon/wire too.)
func TestStagesNeverImportTheCore(t *testing.T) {
	pkgs := packages(t)
	stages := stagePackages(t, pkgs)
	names := make([]string, 0, len(stages))
	for dir := range stages {
		names = append(names, dir)
	}
	sort.Strings(names)
	for _, dir := range names {
		if via, ok := reach(pkgs, dir)[module+"/daemon"]; ok {
			t.Errorf("stage package %s (%s) links the daemon's core (through %s): a stage sees the daemon through daemon/stage only", dir, stages[dir], via)
		}
	}
}

// TestCoreImportsNoStage: the core names no stage; it runs the ones it
// is given (Config.Stages). Of the stage packages it links only
// daemon/stage and daemon/verb, directly or through another package.
func TestCoreImportsNoStage(t *testing.T) {
	pkgs := packages(t)
	stages := stagePackages(t, pkgs)
	for im, via := range reach(pkgs, core.dir) {
		dir, ok := strings.CutPrefix(im, module+"/")
		if !ok || dir == "daemon/stage" || dir == "daemon/verb" {
			continue
		}
		if why, ok := stages[dir]; ok {
			t.Errorf("the daemon's core links the stage package %s (%s, through %s): stages are registered in cmd/vibespace-daemon/stages", dir, why, via)
		}
	}
}

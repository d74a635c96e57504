package profile

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vibespace/vibespace/target"
)

// FuzzRefs feeds arbitrary --profile values and labels to Find, Resolve and
// the slug: nothing panics, every miss is one of the documented codes, a
// hit is exactly what was named, Resolve never changes a set, and a slug is
// always a valid alias (or nothing).
func FuzzRefs(f *testing.F) {
	for _, s := range []string{
		"", "own", "work", "p", "personal", "Vendor portal", " Vendor portal ", "WORK",
		"bp-00000000", "bp-", "bk-", "bk-1a2b3c4d.1", "--all", "-p", "_x",
		"/", "/srv/u/.config/chromium", "./p", "../../etc", "~", "~/p", ".", "..", `a\b`,
		"tab\t", "nl\n", "\x00", "\xff", "é", strings.Repeat("a", 200), "work*", "a,b",
	} {
		f.Add(s)
	}
	r, err := Open(f.TempDir(), fixedClock())
	if err != nil {
		f.Fatal(err)
	}
	var work, personal, vendor, odd Profile
	for _, x := range []struct {
		p     *Profile
		label string
	}{{&work, "work"}, {&personal, "personal"}, {&vendor, "Vendor portal"}, {&odd, "../../etc"}} {
		if *x.p, err = r.New(x.label); err != nil {
			f.Fatal(err)
		}
	}
	for _, u := range [][3]string{{"two", "work", ""}, {"two", personal.ID, "p"}, {"two", odd.ID, ""}, {"one", "work", ""}} {
		if _, err := r.Use(u[0], u[1], u[2]); err != nil {
			f.Fatal(err)
		}
	}
	if _, err := r.NewChild("kid"); err != nil {
		f.Fatal(err)
	}
	sets := map[string][]Attachment{}
	for _, s := range []string{"two", "one", "kid", "empty"} {
		sets[s] = r.Attachments(s)
	}

	f.Fuzz(func(t *testing.T, ref string) {
		p, err := r.Find(ref)
		switch code := target.CodeOf(err); {
		case err == nil:
			if p.ID != ref && p.Label != strings.TrimSpace(ref) {
				t.Fatalf("Find(%q) = %+v: not what was named", ref, p)
			}
		case code == target.CodePathNotHandle:
			if !LooksLikePath(ref) {
				t.Fatalf("Find(%q): path_not_handle for a non-path", ref)
			}
		case code == target.CodeUnknownProfile:
			if LooksLikePath(ref) {
				t.Fatalf("Find(%q): unknown_profile for a path", ref)
			}
		default:
			t.Fatalf("Find(%q) = %v", ref, err)
		}

		for s, set := range sets {
			c, err := r.Resolve(s, ref)
			if !reflect.DeepEqual(set, r.Attachments(s)) {
				t.Fatalf("Resolve(%s, %q) changed the set", s, ref)
			}
			switch code := target.CodeOf(err); {
			case err == nil:
				if c.Count != len(set) {
					t.Fatalf("Count %d, want %d", c.Count, len(set))
				}
				if c.Attachment == nil {
					if ref != "" && ref != OwnHandle || ref == "" && len(set) != 0 {
						t.Fatalf("Resolve(%s, %q) = own context", s, ref)
					}
					continue
				}
				if !slices.Contains(set, *c.Attachment) {
					t.Fatalf("Resolve(%s, %q) = %+v, which is not in the set", s, ref, c.Attachment)
				}
				a := c.Attachment
				if ref != "" && a.Handle != ref && a.ProfileID != ref && a.Label != strings.TrimSpace(ref) {
					t.Fatalf("Resolve(%s, %q) = %+v: not what was named", s, ref, a)
				}
			case code == target.CodeProfileRequired:
				if ref != "" || len(set) < 2 {
					t.Fatalf("profile_required for %q on a set of %d", ref, len(set))
				}
			case code == target.CodeProfileNotAttached:
				if _, ferr := r.Find(ref); ferr != nil {
					t.Fatalf("profile_not_attached for %q, which Find does not know", ref)
				}
			case code == target.CodePathNotHandle:
				if !LooksLikePath(ref) {
					t.Fatalf("path_not_handle for %q", ref)
				}
			case code == target.CodeUnknownProfile:
				if ref == "" || LooksLikePath(ref) {
					t.Fatalf("unknown_profile for %q", ref)
				}
			default:
				t.Fatalf("Resolve(%s, %q) = %v", s, ref, err)
			}
		}

		if sl := slug(ref); sl != "" {
			if err := validAlias(sl); err != nil {
				t.Fatalf("slug(%q) = %q, not a valid alias: %v", ref, sl, err)
			}
		}
		if l, err := cleanLabel(ref); err == nil {
			if !utf8.ValidString(l) || l != strings.TrimSpace(l) || l == "" {
				t.Fatalf("cleanLabel(%q) = %q", ref, l)
			}
		}
	})
}

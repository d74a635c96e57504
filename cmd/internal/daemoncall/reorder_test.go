package daemoncall

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestReorderLiftsGlobalFlagsWithValues(t *testing.T) {
	a := &cli.App{
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}, &cli.StringFlag{Name: "profile"}},
		Commands: []*cli.Command{{Name: "snapshot", Flags: []cli.Flag{JSONFlag, &cli.BoolFlag{Name: "interactive", Aliases: []string{"i"}}}},
			{Name: "fill", Flags: []cli.Flag{JSONFlag}}},
	}
	for _, tc := range []struct{ in, want string }{
		{"x snapshot -i --profile work", "x --profile work snapshot -i"},
		{"x --profile work snapshot -i", "x --profile work snapshot -i"},
		{"x --profile=work snapshot --json", "x --profile=work snapshot --json"},
		{"x fill @e1 --profile w --json hi", "x --profile w fill --json -- @e1 hi"},
		{"x fill @e1 -- --profile", "x fill -- @e1 --profile"},
	} {
		got := strings.Join(Reorder(a, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("Reorder(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

package target

import "testing"

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"shop": "shop", "my-shop_2.0": "my-shop_2.0", "my shop": "'my shop'", "ada's": `'ada'\''s'`, "$(x)": "'$(x)'",
	} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

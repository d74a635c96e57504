package target

import (
	"strings"
	"testing"
)

func TestClipAndEcho(t *testing.T) {
	if Clip("ctrl+s") != "ctrl+s" || Echo("ctrl+s") != `"ctrl+s"` {
		t.Fatalf("a short input is repeated whole: %s %s", Clip("ctrl+s"), Echo("ctrl+s"))
	}
	long := strings.Repeat("ctrl+", 8000) + "x"
	if got, want := Clip(long), long[:EchoLimit]+"…(40001 bytes)"; got != want {
		t.Fatalf("Clip = %q, want %q", got, want)
	}
	if got, want := Echo(long), `"`+long[:EchoLimit]+`"…(40001 bytes)`; got != want {
		t.Fatalf("Echo = %q, want %q", got, want)
	}
	greek := strings.Repeat("α", 100) // two bytes each: the cut keeps whole characters
	if c := Clip(greek); !strings.HasPrefix(c, strings.Repeat("α", 32)+"…(200 bytes)") {
		t.Fatalf("Clip cut a character: %q", c)
	}
}

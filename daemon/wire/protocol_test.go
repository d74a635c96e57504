package wire

import (
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// TestOldRequestIsToldWhereArgumentsGo: a line of protocol 1, a verb's
// arguments beside its envelope, is refused bad_request saying where they
// go now; the same arguments in args decode.
func TestOldRequestIsToldWhereArgumentsGo(t *testing.T) {
	_, err := DecodeRequest([]byte(`{"verb":"click","session":"a","target":"win:1","ref":"@e1"}`))
	if target.CodeOf(err) != target.CodeBadRequest || !strings.Contains(err.Error(), `unknown field "ref"`) || !strings.Contains(err.Error(), `a verb's arguments go in "args"`) {
		t.Fatalf("an old line: %v", err)
	}
	req, err := DecodeRequest([]byte(`{"verb":"click","session":"a","target":"win:1","args":{"ref":"@e1"}}`))
	if err != nil || string(req.Args) != `{"ref":"@e1"}` {
		t.Fatalf("a new line: %+v %v", req, err)
	}
}

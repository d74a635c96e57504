package daemon

import (
	"bufio"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"io"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

func TestReadRequest(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader(`{"verb":"status","session":"a"}`+"\n"+`{"verb":"key","session":"a","target":"win:1","args":{"chord":"ctrl+s"}}`+"\n"), 16)
	req, err := ReadRequest(r, 1024)
	if err != nil || req.Verb != "status" {
		t.Fatal(req, err)
	}
	req, err = ReadRequest(r, 1024)
	if err != nil || string(req.Args) != `{"chord":"ctrl+s"}` {
		t.Fatal(req, err)
	}
	if _, err := ReadRequest(r, 1024); err != io.EOF {
		t.Fatal(err)
	}
	_, err = ReadRequest(bufio.NewReaderSize(strings.NewReader(strings.Repeat("a", 100)+"\n"), 16), 50)
	if target.CodeOf(err) != target.CodeBadRequest || !strings.Contains(err.Error(), "50") {
		t.Fatal(err)
	}
	_, err = ReadRequest(bufio.NewReader(strings.NewReader(`{"verb":"status"`)), 50)
	if target.CodeOf(err) != target.CodeBadRequest {
		t.Fatal(err)
	}
}

// FuzzDecodeRequest: any line either decodes to a request with a verb or
// is a bad_request refusal; never a panic, never another error.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"verb":"status","session":"a"}`,
		`{"verb":"click","session":"a","target":"win:1","args":{"at":"1,2"}}`,
		`{"verb":"type","session":"a","target":"win:1","args":{"ref":"@e3","text":"héllo\u0000"}}`,
		`{"verb":"open","session":"a","args":{"app":"gtk3-widget-factory","args":["--x"]}}`,
		`{"verb":1}`, `{}`, `[]`, `null`, `{"verb":"x"} trailing`, `{"verb":"x","args":{"at":{"x":"1"}}}`, `{"verb":"click","ref":"@e1"}`, "\xff\xfe", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := DecodeRequest(line)
		if err != nil {
			if target.CodeOf(err) != target.CodeBadRequest {
				t.Fatalf("error without bad_request: %v", err)
			}
			return
		}
		if req.Verb == "" {
			t.Fatal("decoded a request without a verb")
		}
		// Through the line reader, too.
		if _, err := ReadRequest(bufio.NewReader(strings.NewReader(string(line)+"\n")), 1<<20); err != nil && target.CodeOf(err) != target.CodeBadRequest {
			t.Fatalf("ReadRequest: %v", err)
		}
	})
}

func TestEveryListedVerbIsAnswered(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	if err := runners(td.stages); err != nil {
		t.Fatal(err)
	}
	for _, v := range Verbs() {
		if r := td.call(t, Request{Verb: v, Session: "s"}); strings.Contains(r.Message, "nothing in this daemon answers") {
			t.Errorf("verb %q is listed but not answered: %s", v, r.Message)
		}
	}
}

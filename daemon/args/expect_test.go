package args

import "testing"

// TestParseExpect: a batch step's --expect grammar, and what it refuses.
func TestParseExpect(t *testing.T) {
	for in, want := range map[string]Expect{
		"":                        {},
		"changed":                 {Kind: ExpectChanged},
		`text:"Saved it"`:         {Kind: ExpectText, Words: "Saved it"},
		"text:Saved":              {Kind: ExpectText, Words: "Saved"},
		"window":                  {Kind: ExpectWindow},
		`window:'Fixture dialog'`: {Kind: ExpectWindow, Words: "Fixture dialog"},
	} {
		got, err := ParseExpect(in)
		if err != nil || got != want {
			t.Errorf("ParseExpect(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"text:", `text:""`, "window:", "changed:x", "saved", "text"} {
		if got, err := ParseExpect(in); err == nil {
			t.Errorf("ParseExpect(%q) = %+v, want it refused", in, got)
		}
	}
	if err := (Batch{}).Validate(); err == nil {
		t.Error("a batch of no steps is taken")
	}
	if err := (Batch{Steps: make([]Step, MaxBatchSteps+1)}).Validate(); err == nil {
		t.Error("a batch over its bound is taken")
	}
	if err := (Type{Text: "x", SecretName: "pw"}).Validate(); err == nil {
		t.Error("a type with a text and a secret is taken")
	}
	if err := (Fill{Ref: "@e1", SecretName: "Not/A/Name"}).Validate(); err == nil {
		t.Error("a fill with a bad secret name is taken")
	}
	if got := Secret(Fill{Ref: "@e1", SecretName: "pw"}); got != "secret:pw" {
		t.Errorf("Secret = %q, want secret:pw", got)
	}
	if a := WithText(Type{SecretName: "pw"}, "v").(Type); a.Text != "v" || a.SecretName != "pw" {
		t.Errorf("WithText = %+v", a)
	}
}

package atspi

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/godbus/dbus/v5"
)

// A call encoded here is the call godbus decodes.
func TestAppendCallDecodesInGodbus(t *testing.T) {
	for _, dest := range []string{"", ":1.42"} {
		raw, err := appendCall(nil, 7, dest, "/org/a11y/atspi/accessible/3", "org.a11y.atspi.EditableText", "InsertText",
			[]any{int32(-1), "héllo", int32(6), uint32(9)})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := dbus.DecodeMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("godbus cannot decode our call: %v", err)
		}
		if got := msg.Headers[dbus.FieldMember].Value(); got != "InsertText" {
			t.Errorf("member %v", got)
		}
		if got := msg.Headers[dbus.FieldPath].Value(); got != dbus.ObjectPath("/org/a11y/atspi/accessible/3") {
			t.Errorf("path %v", got)
		}
		if d, ok := msg.Headers[dbus.FieldDestination]; ok != (dest != "") || (ok && d.Value() != dest) {
			t.Errorf("destination %v, want %q", d, dest)
		}
		if len(msg.Body) != 4 || msg.Body[0] != int32(-1) || msg.Body[1] != "héllo" || msg.Body[2] != int32(6) || msg.Body[3] != uint32(9) {
			t.Errorf("body %#v", msg.Body)
		}
	}
	if _, err := appendCall(nil, 1, "", "/", "a.b", "C", []any{1.5}); err == nil {
		t.Error("a float argument encoded")
	}
}

// godbus encodes bodies of the shapes AT-SPI answers with; body reads them.
func TestBodyReadsGodbusBodies(t *testing.T) {
	encode := func(args ...any) *body {
		t.Helper()
		m := &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldReplySerial: dbus.MakeVariant(uint32(1)),
			dbus.FieldSignature:   dbus.MakeVariant(dbus.SignatureOf(args...)),
		}, Body: args}
		var buf bytes.Buffer
		if err := m.EncodeTo(&buf, binary.LittleEndian); err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		fields := binary.LittleEndian.Uint32(raw[12:])
		start := 16 + int(fields+7)&^7
		return &body{b: raw[start:], order: binary.LittleEndian}
	}

	type so struct {
		Name string
		Path dbus.ObjectPath
	}
	b := encode([]so{{":1.3", "/a/1"}, {":1.3", "/a/2"}})
	var kids []Object
	b.array(8, func() { kids = append(kids, b.objRef()) })
	if b.err != nil || len(kids) != 2 || kids[1] != (Object{":1.3", "/a/2"}) {
		t.Errorf("a(so): %v %v", kids, b.err)
	}

	// a{sv} with a value type the walk does not want (skipped) in between.
	b = encode(map[string]dbus.Variant{
		"Name":       dbus.MakeVariant("Alpha"),
		"ChildCount": dbus.MakeVariant(int32(3)),
		"Parent":     dbus.MakeVariant(so{":1.3", "/a/0"}),
		"Odd":        dbus.MakeVariant(map[string][]int64{"x": {1, 2}}),
		"Locale":     dbus.MakeVariant("C"),
	})
	got := map[string]any{}
	b.array(8, func() {
		b.align(8)
		k := b.str()
		got[k] = b.variant()
	})
	if b.err != nil || got["Name"] != "Alpha" || got["ChildCount"] != int32(3) || got["Locale"] != "C" ||
		got["Parent"] != (Object{":1.3", "/a/0"}) || got["Odd"] != nil {
		t.Errorf("a{sv}: %#v %v", got, b.err)
	}

	b = encode(struct{ X, Y, W, H int32 }{-5, 6, 70, 80})
	b.align(8)
	if x, y, w, h := b.i32(), b.i32(), b.i32(), b.i32(); b.err != nil || x != -5 || y != 6 || w != 70 || h != 80 {
		t.Errorf("(iiii): %d %d %d %d %v", x, y, w, h, b.err)
	}

	// A body cut short is an error, not a panic.
	b = encode("a long enough string")
	b.b = b.b[:6]
	if b.str(); b.err == nil {
		t.Error("a truncated string read without error")
	}
}

func TestUnixAddress(t *testing.T) {
	for addr, want := range map[string]string{
		"unix:path=/run/user/0/at-spi/bus_0,guid=abc": "/run/user/0/at-spi/bus_0",
		"unix:abstract=/tmp/dbus-x,guid=1":            "@/tmp/dbus-x",
		"tcp:host=x;unix:path=/a%20b":                 "/a b",
	} {
		_, got, err := unixAddress(addr)
		if err != nil || got != want {
			t.Errorf("unixAddress(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
	if _, _, err := unixAddress("tcp:host=127.0.0.1,port=1"); err == nil {
		t.Error("a tcp-only address parsed")
	}
}

func TestChooseAction(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
		i     int
	}{
		{[]string{"click"}, "", 0},
		{[]string{"activate", "press"}, "", 1},
		{[]string{"expand or contract", "activate"}, "click", 1},
		{[]string{""}, "", 0},
		{[]string{"menu", "edit"}, "", 0},
		{[]string{"menu", "Edit"}, "edit", 1},
		{[]string{"menu"}, "fly", -1},
	} {
		if got := chooseAction(c.names, c.want); got != c.i {
			t.Errorf("chooseAction(%q, %q) = %d, want %d", c.names, c.want, got, c.i)
		}
	}
}

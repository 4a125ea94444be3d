package reqstate

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// plainAll has a field of every kind a plan handles, tags and fields
// encoding/json leaves out.
type plainAll struct {
	S      string `json:"s"`
	Empty  string `json:"empty,omitempty"`
	B      bool
	BO     bool  `json:"bo,omitempty"`
	I      int   `json:"i"`
	I8     int8  `json:"i8"`
	I16    int16 `json:"i16,omitempty"`
	I32    int32
	I64    int64  `json:"i64"`
	U      uint   `json:"u"`
	U8     uint8  `json:"u8"`
	U16    uint16 `json:"u16"`
	U32    uint32 `json:"u32,omitempty"`
	U64    uint64 `json:"u64"`
	Skip   string `json:"-"`
	Dash   string `json:"da-sh"`
	hidden string
	Named  level `json:"named"`
}

type level int

type withText struct{ T textish }
type textish string

func (t textish) MarshalText() ([]byte, error) { return []byte("x" + t), nil }

type embedded struct{ plainAll }
type withString struct {
	N int `json:"n,string"`
}
type withFloat struct{ F float64 }
type withPointer struct{ P *string }
type caseTwins struct {
	ID string
	Id string `json:"id"`
}
type oddKey struct {
	K string `json:"a b"`
}
type withTime struct{ T time.Time }

func TestPlanOnlyForPlainStructs(t *testing.T) {
	for _, v := range []any{plainAll{}, struct{}{}, deployish{}} {
		if planOf(reflect.TypeOf(v)) == nil {
			t.Errorf("%T has no plan", v)
		}
	}
	for _, v := range []any{withText{}, embedded{}, withString{}, withFloat{}, withPointer{}, caseTwins{}, oddKey{}, withTime{}, "s", 1, map[string]string{}} {
		if planOf(reflect.TypeOf(v)) != nil {
			t.Errorf("%T has a plan; encoding/json must handle it", v)
		}
	}
}

type deployish struct {
	Service string `json:"service"`
	Version string `json:"version"`
}

// A plan writes exactly what json.Marshal writes, or declines.
func TestPlanWritesWhatMarshalWrites(t *testing.T) {
	values := []any{
		plainAll{},
		plainAll{S: "auth-service", Empty: "x", B: true, BO: true, I: -1, I8: math.MinInt8, I16: 7, I32: math.MaxInt32, I64: math.MinInt64,
			U: 1, U8: math.MaxUint8, U16: 9, U32: 1, U64: math.MaxUint64, Skip: "no", Dash: "dash", hidden: "no", Named: 3},
		plainAll{S: "<tag> & \"quote\" \\ \n é \u2028"},
		deployish{Service: "auth-service", Version: "2.4.1"},
		struct{}{},
		withFloat{F: 1.5},
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendPayload([]byte("prefix"), v)
		if !ok {
			if string(got) != "prefix" {
				t.Errorf("%T: a declined plan left %q", v, got)
			}
			continue
		}
		if string(got) != "prefix"+string(want) {
			t.Errorf("plan wrote %s\njson.Marshal writes %s", got[len("prefix"):], want)
		}
	}
	if _, ok := appendPayload(nil, plainAll{S: "<"}); ok {
		t.Error("a string encoding/json escapes was written by the plan")
	}
	if _, ok := appendPayload(nil, deployish{Service: "a"}); !ok {
		t.Error("the typical payload is not written by its plan")
	}
}

// A plan reads what it wrote; whatever else it is given, the value is what
// json.Unmarshal makes of it, error or not.
func TestPlanReadsAsUnmarshal(t *testing.T) {
	for _, s := range payloadSeeds {
		checkPlanRead(t, s)
	}
}

var payloadSeeds = []string{
	`{}`, `{"s":"auth-service","B":true,"i":-12,"i8":-128,"I32":5,"i64":9,"u":1,"u8":255,"u16":0,"u64":18446744073709551615,"named":2}`,
	`{"s":"a","s":"b"}`, `{"i":1,"s":"a"}`, `{"S":"case"}`, `{"s":"\u0041"}`, `{"s":"é"}`, `{"i8":128}`, `{"u8":-1}`,
	`{"i":01}`, `{"i":-0}`, `{"i":1.0}`, `{"i":1e2}`, `{"i":"1"}`, `{"B":tru}`, `{"B":null}`, `{"s":null}`,
	`{"s":"a"} `, ` {"s":"a"}`, `{"s":"a",}`, `{"s" :"a"}`, `{"x":1}`, `{"s":"a"`, `{"s":"a\"}`, `{`, ``, `[]`, `null`,
	`{"i":-}`, `{"u64":18446744073709551616}`, `{"i64":-9223372036854775809}`, `{"bo":false,"i16":0}`, `{"da-sh":"dash"}`,
	`{"s":"a","named":-3}`, `{"s":"tab	"}`, `{"B":true}x`,
}

func checkPlanRead(t *testing.T, data string) {
	t.Helper()
	prefill := func() plainAll { return plainAll{S: "old", I: 42, Named: 1, B: true} }
	got, want := prefill(), prefill()
	gotErr := decodePayload([]byte(data), &got)
	wantErr := json.Unmarshal([]byte(data), &want)
	if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("payload %q: plan read %+v, %v\njson.Unmarshal makes %+v, %v", data, got, gotErr, want, wantErr)
	}
	var d1, d2 deployish
	e1, e2 := decodePayload([]byte(data), &d1), json.Unmarshal([]byte(data), &d2)
	if (e1 == nil) != (e2 == nil) || d1 != d2 {
		t.Fatalf("payload %q: plan read %+v, %v\njson.Unmarshal makes %+v, %v", data, d1, e1, d2, e2)
	}
}

func FuzzPayloadRead(f *testing.F) {
	for _, s := range payloadSeeds {
		f.Add(s)
	}
	f.Add(`{"service":"auth-service","version":"2.4.1"}`)
	f.Fuzz(func(t *testing.T, data string) {
		if strings.Count(data, "{") > 100 {
			return
		}
		checkPlanRead(t, data)
	})
}

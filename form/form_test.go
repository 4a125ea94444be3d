package form

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/askback/askback/formschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type target struct {
	Environment string `json:"environment" form:"title=Target environment,default=staging,oneof=staging:Staging|production:Production"`
	Confirm     bool   `json:"confirm" form:"title=I have reviewed the changes"`
}

type everyKind struct {
	Name      string   `json:"name" jsonschema:"Your full name" form:"title=Name, as on your badge,minlen=2,maxlen=40"`
	Email     string   `json:"email,omitempty" form:"format=email"`
	Age       int      `json:"age,omitempty" form:"min=18,max=130,default=30"`
	Ratio     float64  `json:"ratio,omitempty" form:"min=0,max=1"`
	Subscribe bool     `json:"subscribe,omitempty" form:"default=true"`
	Color     string   `json:"color,omitempty" form:"enum=red|green|blue"`
	Tags      []string `json:"tags,omitempty" form:"enum=a|b|c,minitems=1,maxitems=2,default=a"`
	Regions   []string `json:"regions,omitempty" form:"oneof=eu:Europe|us:United States"`
	Birthday  string   `json:"birthday,omitempty" form:"format=date"`
}

func TestNewBuildsTheSeedsForm(t *testing.T) {
	f, err := New[target]()
	if err != nil {
		t.Fatal(err)
	}
	fs := f.Fields()
	if len(fs.Fields) != 2 || fs.Fields[0].Name != "environment" || fs.Fields[1].Name != "confirm" {
		t.Fatalf("fields = %+v", fs.Fields)
	}
	env := fs.Fields[0]
	if env.Kind != formschema.SingleEnum || env.Title != "Target environment" || env.Default != "staging" || !env.Required || env.Options[1] != (formschema.Option{Value: "production", Title: "Production"}) {
		t.Errorf("environment = %+v", env)
	}
	var raw map[string]any
	if err := json.Unmarshal(f.Schema(), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["additionalProperties"]; ok {
		t.Error("schema carries additionalProperties, which is outside the form subset")
	}
	p := f.Ask("Where to?")
	if p.Mode != "form" || p.Message != "Where to?" {
		t.Errorf("Ask = %+v", p)
	}
}

func TestNewEveryFieldKind(t *testing.T) {
	f, err := New[everyKind]()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]formschema.Kind{"name": formschema.String, "email": formschema.String, "age": formschema.Integer,
		"ratio": formschema.Number, "subscribe": formschema.Boolean, "color": formschema.SingleEnum,
		"tags": formschema.MultiSelect, "regions": formschema.MultiSelect, "birthday": formschema.String}
	for name, kind := range want {
		if fld := f.Fields().Field(name); fld == nil || fld.Kind != kind {
			t.Errorf("%s: %+v, want %s", name, fld, kind)
		}
	}
	name := f.Fields().Field("name")
	if name.Title != "Name, as on your badge" || name.Description != "Your full name" || *name.MinLength != 2 {
		t.Errorf("name = %+v", name)
	}
	if f.Fields().Field("regions").Options[1].Title != "United States" {
		t.Error("titled multi-select lost its titles")
	}
	if f.Fields().Field("name").Required != true || f.Fields().Field("email").Required {
		t.Error("required should follow omitempty")
	}
}

func TestNewRefusesSecrets(t *testing.T) {
	type pw struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	type apiKey struct {
		APIKey string `json:"apiKey"`
	}
	type titled struct {
		X string `json:"x" form:"title=Your GitHub personal access token"`
	}
	type described struct {
		X string `json:"x" jsonschema:"the CVV on the back of your card"`
	}
	cases := map[string]func() error{
		"password":        func() error { _, err := New[pw](); return err },
		"apiKey":          func() error { _, err := New[apiKey](); return err },
		"title token":     func() error { _, err := New[titled](); return err },
		"description cvv": func() error { _, err := New[described](); return err },
	}
	for name, f := range cases {
		err := f()
		if err == nil || !strings.Contains(err.Error(), "looks like it asks for a secret") || !strings.Contains(err.Error(), "use URL mode") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSecretPolicyWords(t *testing.T) {
	p := DefaultSecretPolicy()
	secret := []string{"password", "new_password", "passphrase", "pin", "clientSecret", "token", "accessToken",
		"refresh_token", "api_key", "apiKey", "API key", "privateKey", "ssh key", "credentials", "otp", "totp",
		"card_number", "cardNumber", "credit card", "cvv", "CVC", "iban", "IBAN", "account number", "routing_number",
		"ssn", "seed phrase", "recovery codes", "secret"}
	for _, s := range secret {
		if p.Match(s) == "" {
			t.Errorf("%q not recognised as a secret", s)
		}
	}
	fine := []string{"username", "email", "name", "environment", "confirm", "passenger", "spinner", "tokenizer_mode", "keyboard layout", "opinion", "pink"}
	for _, s := range fine {
		if m := p.Match(s); m != "" {
			t.Errorf("%q wrongly taken for a secret (%q)", s, m)
		}
	}
	type counted struct {
		TokenCount int `json:"token_count"`
	}
	if _, err := New[counted](); err == nil {
		t.Error("token_count should be refused by default")
	}
	if _, err := New[counted](WithSecretPolicy(DefaultSecretPolicy().Allow("token_count"))); err != nil {
		t.Errorf("Allow did not exempt the field: %v", err)
	}
	type wallet struct {
		Wallet string `json:"wallet"`
	}
	if _, err := New[wallet](WithSecretPolicy(DefaultSecretPolicy().Add("wallet"))); err == nil {
		t.Error("Add did not extend the policy")
	}
}

func TestNewRefusesOutsideTheSubset(t *testing.T) {
	type nested struct {
		Addr struct{ City string } `json:"addr"`
	}
	type objList struct {
		Items []struct{ A string } `json:"items"`
	}
	type badTag struct {
		X string `json:"x" form:"colour=red"`
	}
	type badFormat struct {
		X string `json:"x" form:"format=ipv4"`
	}
	for name, err := range map[string]error{
		"nested":  func() error { _, err := New[nested](); return err }(),
		"objList": func() error { _, err := New[objList](); return err }(),
		"badTag":  func() error { _, err := New[badTag](); return err }(),
		"format":  func() error { _, err := New[badFormat](); return err }(),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Two fields whose names differ only in letter case cannot be told apart by
// encoding/json, which decodes the answer: the form is refused; and an answer
// that writes a field's name in another case is not that field.
func TestCaseCollidingNames(t *testing.T) {
	type twins struct {
		To string `json:"to"`
		TO string `json:"TO"`
	}
	if _, err := New[twins](); err == nil || !strings.Contains(err.Error(), "differ only in letter case") {
		t.Fatalf("New with fields to and TO = %v, want a refusal", err)
	}
	f := Must[target]()
	_, err := f.Decode(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true, "Environment": "production"}})
	var ve *formschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Decode with Environment = %v, want a validation error", err)
	}
}

func TestDecode(t *testing.T) {
	f := Must[target]()
	got, err := f.Decode(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}})
	if err != nil || got != (target{Environment: "staging", Confirm: true}) {
		t.Errorf("Decode with default = %+v, %v", got, err)
	}
	_, err = f.Decode(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "moon"}})
	var ve *formschema.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Errorf("Decode of a bad answer = %v", err)
	}
	if _, err := f.Decode(&mcp.ElicitResult{Action: "decline"}); !errors.Is(err, ErrNotAccepted) {
		t.Errorf("decline: %v", err)
	}
	if _, err := f.Decode(nil); !errors.Is(err, ErrNotAccepted) {
		t.Errorf("nil: %v", err)
	}
	ek := Must[everyKind]()
	v, err := ek.Decode(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "regions": []any{"eu"}}})
	if err != nil || v.Age != 30 || !v.Subscribe || len(v.Tags) != 1 || v.Regions[0] != "eu" {
		t.Errorf("every kind = %+v, %v", v, err)
	}
}

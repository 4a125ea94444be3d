package form

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/formschema"
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

func TestNewBuildsTheDeployForm(t *testing.T) {
	f, err := New[target](nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := f.Schema()
	if len(fs.Fields) != 2 || fs.Fields[0].Name != "environment" || fs.Fields[1].Name != "confirm" {
		t.Fatalf("fields = %+v", fs.Fields)
	}
	env := fs.Fields[0]
	if env.Kind != formschema.SingleEnum || env.Title != "Target environment" || env.Default != "staging" || !env.Required || env.Options[1] != (formschema.Option{Value: "production", Title: "Production"}) {
		t.Errorf("environment = %+v", env)
	}
	var raw map[string]any
	if err := json.Unmarshal(f.RequestedSchema(), &raw); err != nil {
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
	f, err := New[everyKind](nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]formschema.Kind{"name": formschema.String, "email": formschema.String, "age": formschema.Integer,
		"ratio": formschema.Number, "subscribe": formschema.Boolean, "color": formschema.SingleEnum,
		"tags": formschema.MultiSelect, "regions": formschema.MultiSelect, "birthday": formschema.String}
	for name, kind := range want {
		if fld := f.Schema().Field(name); fld == nil || fld.Kind != kind {
			t.Errorf("%s: %+v, want %s", name, fld, kind)
		}
	}
	name := f.Schema().Field("name")
	if name.Title != "Name, as on your badge" || name.Description != "Your full name" || *name.MinLength != 2 {
		t.Errorf("name = %+v", name)
	}
	if f.Schema().Field("regions").Options[1].Title != "United States" {
		t.Error("titled multi-select lost its titles")
	}
	if f.Schema().Field("name").Required != true || f.Schema().Field("email").Required {
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
		"password":        func() error { _, err := New[pw](nil); return err },
		"apiKey":          func() error { _, err := New[apiKey](nil); return err },
		"title token":     func() error { _, err := New[titled](nil); return err },
		"description cvv": func() error { _, err := New[described](nil); return err },
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
	for _, c := range []struct {
		text, want string // want: the term found, "" for none
	}{
		// plain spellings
		{"password", "password"}, {"new_password", "password"}, {"password2", "password"}, {"passphrase", "passphrase"},
		{"pin", "pin"}, {"Your PIN", "pin"}, {"clientSecret", "client secret"}, {"token", "token"},
		{"accessToken", "access token"}, {"refresh_token", "refresh token"}, {"api_key", "api key"}, {"apiKey", "api key"},
		{"API key", "api key"}, {"APIKey", "api key"}, {"apikey", "api key"}, {"privateKey", "private key"},
		{"ssh key", "ssh key"}, {"credentials", "credential"}, {"totp", "totp"}, {"card_number", "card number"},
		{"cardNumber", "card number"}, {"credit card", "credit card"}, {"cvv", "cvv"}, {"CVC", "cvc"}, {"IBAN", "iban"},
		{"account number", "account number"}, {"routing_number", "routing number"}, {"ssn", "ssn"},
		{"seed phrase", "seed phrase"}, {"recovery codes", "recovery code"}, {"secret", "secret"},
		{"Your GitHub personal access token", "access token"}, {"the CVV on the back of your card", "cvv"},
		// what both earlier lists missed
		{"pwd", "pwd"}, {"pw", "pw"}, {"passcode", "passcode"}, {"pass phrase", "passphrase"}, {"Pass-Phrase", "passphrase"},
		{"2fa", "2fa"}, {"2FA code", "2fa"}, {"mfa", "mfa"}, {"MFA_code", "mfa"}, {"otp", "otp"}, {"sms code", "sms code"},
		{"smsCode", "sms code"}, {"jwt", "jwt"}, {"cookie", "cookie"}, {"session cookies", "cookie"},
		// disguises
		{"p\u0430ssword", "password"},      // Cyrillic а
		{"\u0420\u0410SSWORD", "password"}, // Cyrillic Р and А
		{"\u03c1assword", "password"},      // Greek ρ
		{"p@ssword", "password"}, {"p@ssw0rd", "password"}, {"pa55word", "password"}, {"P4SSW0RD", "password"},
		{"$ecret", "secret"}, {"s3cr3t", "secret"}, {"pr!vate key", "private key"},
		{"\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44", "password"}, // full-width
		{"p\u00e1ssw\u00f6rd", "password"},                               // accents
		{"pass\u200bword", "password"},                                   // zero-width space
		{"Enter your password!", "password"},
		// not secrets
		{"username", ""}, {"email", ""}, {"name", ""}, {"environment", ""}, {"confirm", ""}, {"passenger", ""},
		{"passage", ""}, {"spinner", ""}, {"tokenizer_mode", ""}, {"keyboard layout", ""}, {"opinion", ""}, {"pink", ""},
		{"max_tokens", ""}, {"token count", ""}, {"token_count", ""}, {"Pin the issue to the top", ""}, {"secretary", ""},
		{"sort order", ""}, {"Target environment", ""}, {"Japan", ""}, {"version 2026", ""}, {"company", ""},
		{"password reset email", "password"},
		// a warning not to give a secret does not ask for it (the reference
		// server-everything's form), unless the clause asks after all
		{"Your favorite integer (do not give us your phone number, pin, or other sensitive info)", ""},
		{"Never share your password.", ""}, {"Please don't enter your PIN", ""}, {"Remember not to include any API keys", ""},
		{"Never ever type a password here", ""}, {"Do not give us your card number; the CVV", "cvv"},
		{"Don't forget to enter your password", "password"}, {"Don't worry, type your PIN", "pin"},
		{"Never share your password, but type it here: password", "password"},
		{"Do not share it with anyone else. Your password", "password"}, {"PIN (do not share it)", "pin"},
		{"Never share your password, except here", "password"}, {"Not your pin", "pin"},
	} {
		if got := p.Match(c.text); got != c.want {
			t.Errorf("Match(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	type pinned struct {
		PinToTop bool `json:"pin_to_top"`
	}
	if _, err := New[pinned](nil); err != nil {
		t.Errorf("pin_to_top refused: %v", err)
	}
	type code struct {
		Code string `json:"sms_code"`
	}
	if _, err := New[code](nil); err == nil {
		t.Error("sms_code should be refused by default")
	}
	if _, err := New[code](&Options{Secrets: DefaultSecretPolicy().Allow("sms_code")}); err != nil {
		t.Errorf("Allow did not exempt the field: %v", err)
	}
	type wallet struct {
		Wallet string `json:"wallet"`
	}
	if _, err := New[wallet](&Options{Secrets: DefaultSecretPolicy().Add("wallet")}); err == nil {
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
		"nested":  func() error { _, err := New[nested](nil); return err }(),
		"objList": func() error { _, err := New[objList](nil); return err }(),
		"badTag":  func() error { _, err := New[badTag](nil); return err }(),
		"format":  func() error { _, err := New[badFormat](nil); return err }(),
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
	if _, err := New[twins](nil); err == nil || !strings.Contains(err.Error(), "differ only in letter case") {
		t.Fatalf("New with fields to and TO = %v, want a refusal", err)
	}
	f := Must[target](nil)
	_, err := f.Decode(ask.Answer{Action: ask.Accept, Content: map[string]any{"confirm": true, "Environment": "production"}})
	var ve *formschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Decode with Environment = %v, want a validation error", err)
	}
}

func TestDecode(t *testing.T) {
	f := Must[target](nil)
	got, err := f.Decode(ask.Answer{Action: ask.Accept, Content: map[string]any{"confirm": true}})
	if err != nil || got != (target{Environment: "staging", Confirm: true}) {
		t.Errorf("Decode with default = %+v, %v", got, err)
	}
	_, err = f.Decode(ask.Answer{Action: ask.Accept, Content: map[string]any{"environment": "moon"}})
	var ve *formschema.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Errorf("Decode of a bad answer = %v", err)
	}
	if _, err := f.Decode(ask.Answer{Action: ask.Decline}); !errors.Is(err, ErrNotAccepted) {
		t.Errorf("decline: %v", err)
	}
	if _, err := f.Decode(ask.Answer{}); !errors.Is(err, ErrNotAccepted) {
		t.Errorf("nil: %v", err)
	}
	ek := Must[everyKind](nil)
	v, err := ek.Decode(ask.Answer{Action: ask.Accept, Content: map[string]any{"name": "Ada", "regions": []any{"eu"}}})
	if err != nil || v.Age != 30 || !v.Subscribe || len(v.Tags) != 1 || v.Regions[0] != "eu" {
		t.Errorf("every kind = %+v, %v", v, err)
	}
}

func FuzzSecretPolicyMatch(f *testing.F) {
	for _, s := range []string{"p@ssw0rd", "pa55word1", "\u0420\u0410SSWORD", "2FA code", "Pin the issue", "$", "@@", "1@1"} {
		f.Add(s)
	}
	p := DefaultSecretPolicy()
	f.Fuzz(func(t *testing.T, s string) {
		// Matching never panics, and a text found secret stays secret with
		// more text around it.
		if m := p.Match(s); m != "" && p.Match("x "+s+" .") == "" {
			t.Fatalf("Match(%q) = %q, but nothing in it with text around", s, m)
		}
	})
}

type options struct {
	DryRun bool   `json:"dryRun,omitempty" form:"default=true"`
	Level  int    `json:"level,omitempty" form:"min=1,max=5,default=3"`
	Env    string `json:"env,omitempty" form:"default=staging,enum=staging|production"`
}

// Null is no answer: the handler gets the default, never the zero value the
// schema does not allow (a dry run turned off by null).
func TestDecodeNullIsNoAnswer(t *testing.T) {
	f := Must[options](nil)
	got, err := f.Decode(ask.Answer{Action: ask.Accept, Content: map[string]any{"dryRun": nil, "level": nil, "env": nil}})
	if want := (options{DryRun: true, Level: 3, Env: "staging"}); err != nil || got != want {
		t.Errorf("Decode of nulls = %+v, %v; want the defaults %+v", got, err, want)
	}
}

package reqstate_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/reqstate"
)

// wireDigests are arguments with the digests the codec made of them on
// 2026-12-06 (none: refused). They are part of the wire format: a state
// issued for the arguments before must still open, so the canonical form
// may not change a byte.
var wireDigests = []struct{ args, digest string }{
	{"", "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"},
	{" ", "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"},
	{"null", "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"},
	{"{}", "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"},
	{"[]", "T1PNoYwrqgwDVLtfmj7L5e0Sq02OEbqHPC8RFhICuUU"},
	{"{\"a\":1}", "AVq9f1zFei3ZS3WQ8ErYCEJzkF7jPsXOvq5iJ2qX-GI"},
	{"{\"service\":\"auth-service\"}", "kDnb_DsIWwUxtyd4LFJPE3Qrwk342JEJVfVp4j_zgpw"},
	{" { \"service\" : \"auth-service\" } ", "kDnb_DsIWwUxtyd4LFJPE3Qrwk342JEJVfVp4j_zgpw"},
	{"{\"b\":[true,null,2.50],\"a\":1.0,\"c\":{\"y\":\"é\",\"x\":1e2}}", "lL2AdlV1gy6Q1h9XfZX9sCbNHA2UX3fVed_iAnl9azw"},
	{"{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u2028<>&\\u00e9\\ud83d\\ude00\"}", "79Yupwk1lGRGK52qojgL_uTP_86vymeB4CSQoQ5P90E"},
	{"{\"\\u00e9\":1,\"e\":2}", "rgzBU4Vq6P2rJCDI-ONqn5zUfEsac1Mb5L19yAkvpp4"},
	{"\"x\"", "ui30kDosFOhtw7zKWJEbRKwdJRS3Inv26wjPuXj1Whs"},
	{"-0", "X-zrZv_IbzjZUnhsbWlsecLbwjndTpG0ZynXOif7V-k"},
	{"1E400", "8rukVo_s1LlymXBzLlcayTc6M_stapYHlKQfDy7NvCU"},
	{"[1,2,[3,[4]]]", "PflBKeUAYIv6Sq_SjWypZl9qJxREcDzQsiSHhSndWIk"},
	{"{\"a\":{\"b\":{\"c\":[{\"d\":\"e\"}]}}}", "qtgkJwYcm57tyiLPTfRiCQdaU0sAz3OGRyT0u8mocjY"},
	{"{\"z\":1,\"y\":{\"b\":2,\"a\":[{\"q\":1,\"p\":2}]},\"x\":\"3\"}", "S39qXoHOcjvqziVRMvoOwbVjyY_gmqQ7M0oBedquUgg"},
	{"{\"n\":[0,-0,1e21,1e-7,123456789012345678901,1234567890123456789012,0.1,0.10000000000000000001,-1.5e-30,12e3,1.2E4,9007199254740993.0]}", "M6bv0RbonI3PT7_8T5g0aowXrImJDlsPYDkEo2zCJxQ"},
	{"{\"k1\":1,\"k10\":2,\"k2\":3,\"K3\":4,\"a b\":5,\"\":6,\"~\":7,\"\\u007f\":8,\"\\\"\":9}", "iHKetaESj9Q0n65nSSVBNT79kxgLlVTlkXs6h5dJ1CI"},
	{"{\"m00\":0,\"m01\":1,\"m02\":2,\"m03\":3,\"m04\":4,\"m05\":5,\"m06\":6,\"m07\":7,\"m08\":8,\"m09\":9,\"m10\":10,\"m11\":11,\"m12\":12,\"m13\":13,\"m14\":14,\"m15\":15,\"m16\":16,\"m17\":17,\"m18\":18,\"m19\":19,\"m20\":20,\"m21\":21,\"m22\":22,\"m23\":23,\"m24\":24,\"m25\":25,\"m26\":26,\"m27\":27,\"m28\":28,\"m29\":29}", "oxY16LLnxH4Hov1mZAispsvBie4bLwO5xDg1uHpg02k"},
	{"{\"m29\":0,\"m28\":1,\"m27\":2,\"m26\":3,\"m25\":4,\"m24\":5,\"m23\":6,\"m22\":7,\"m21\":8,\"m20\":9,\"m19\":10,\"m18\":11,\"m17\":12,\"m16\":13,\"m15\":14,\"m14\":15,\"m13\":16,\"m12\":17,\"m11\":18,\"m10\":19,\"m09\":20,\"m08\":21,\"m07\":22,\"m06\":23,\"m05\":24,\"m04\":25,\"m03\":26,\"m02\":27,\"m01\":28,\"m00\":29}", "FVHXttSMGGJ3qlpYAqBRHC9jKM6nKeOvBiOmYWecxIs"},
	{"\"\xff\"", "VoYBBwMU4PRInJlEs8FR1SUdN5MwAIKTu34agmoiqEU"},
	{"{\"a\":\"\\ud800\"}", "_yg7kg6y20F4HvITqcKkKPMJKKLNx3tn3BQmVFtO8C8"},
	{"{\"a\":1,\"A\":2}", ""},
	{"{\"a\":1,\"a\":2}", ""},
	{"{\"a\":1} x", ""},
}

// wireTokenArgs are the arguments of the states in wireStates.
var wireTokenArgs = []string{`{"service":"auth-service"}`, `{"b":[1.0,{"y":"é","x":1e2}],"a":"\u00e9"}`}

// wirePayloads are the payloads of the states in wireStates.
func wirePayloads() []any {
	return []any{deployState{Service: "auth-service", Version: "2.4.1"}, map[string]any{"a": []any{1, "b"}}, "x"}
}

// wireStates were issued on 2026-12-06, sealed then signed, with key k1
// filled with 1, the clock of newClock and countingReader's bytes, for
// alice's deploy with each of wireTokenArgs and each of wirePayloads.
var wireStates = []string{
	"e2.k1.r1Vw9aGBC3r3jK9LTPE17itLkIEom3LC8b1zVmuU9AaFMKvgw9w5aIfW2pueSgaLNw84yPUVRbcg6axSvAysYHfrDpjDFHtU430Canl_UXciDXu9HcWbeB-FAD25bHJgsUlYj2lUulX9CRjEZzAZ06HwtATRG-T8lZiRSUaKPqEvHnHZ4xc16kBiE9oqVYr8P7Tb_pOWjazu0MAZOmU",
	"e2.k1.zSZiFU5tdrKyuS5wlV2CORNs5aLs1rptaqu7jGUN6TjeSRyNAzIi4fpC4y5Wt0Eeq1dAtK9B41pv8b2HzQSUGGY1Mi7JnyK0N6mtpjUv0hHvRfJW6gy-fuWwdOtktNDreEiEnnO1gSQlfQno_5EyOVL8DzNDNVQNGl_pD_U8Hg",
	"e2.k1.zQSkdUSY4G21oTxfLxdeFCc_heDGIcKQpS_Jm3rxxAaiwggI3mIBLDv8Pb_-ADctjglg3ih6PvZ6tllnSVyfZfSqi8WgI9yr2UKZLZ08bMwc1vURdEW5jlNzcA25gsHjaji-B15MmCCm9B459PXcDP7_r72f",
	"e2.k1.1WiKUtVaAuxK6l7BXQpH8HufeFaxOGvDFErH6iv9QH9xQj5zN62j5gmjSbKplj7Wd3EpgptPV77yKPEG1h1-uFTJ5SbQRhMfLnu_lAgUxy1u3C15mUhhvbPrHu66xy24zG7shiAHdWDMIMR3dWY-3s7EJpbJYFYxJKvugxgK3HbyUEm4Jggtt846uf7Dpp_R2mhYsSkLK4vrQlNVPpY",
	"e2.k1.gAXwLUP6BufQWF-2bTisOM7NRX-podyBfNTSI7bQjDrZlRjnESkbRR26ewCyaxZgiyUBdaFnhYBmyoRHCNGymdbxvKQtVOSKby9ALxoqQ2vv9scJLwQvJwXSyLIV7Y8lnvg7bnU4XE_ZsWDVhlzfbSS8DWxCda1nd9k8JYcniw",
	"e2.k1.Xe5N1g_40LqZAP6RGCeb9OWUrtCxpWIg9GSlXnReFOYevKRSHZKueyHIiw-luQwsF6Ed34eCAkMncE8fwwGJDDWl4JSa-To69A-xxEOXdKbQKHzMzxmw3DfXqxz1JqLnqvcySHolq4lI1Y11e4fdANNruNvG",
	"s2.k1.AgAAAAGfqJiWAAAAAZ-oob3ABWFsaWNlCnRvb2xzL2NhbGwGZGVwbG95K2tEbmJfRHNJV3dVeHR5ZDRMRkpQRTNRcndrMzQySkVKVmZWcDRqX3pncHd7InNlcnZpY2UiOiJhdXRoLXNlcnZpY2UiLCJ2ZXJzaW9uIjoiMi40LjEifQ.ShntISItoafGQG1LpanmRhBZ-TxSHssQW--UgxWGvhc",
	"s2.k1.AgAAAAGfqJiWAAAAAZ-oob3ABWFsaWNlCnRvb2xzL2NhbGwGZGVwbG95K2tEbmJfRHNJV3dVeHR5ZDRMRkpQRTNRcndrMzQySkVKVmZWcDRqX3pncHd7ImEiOlsxLCJiIl19.pnPsrd-wzX0AnODrxchJo36OYgi3nideI0kP770Oqyc",
	"s2.k1.AgAAAAGfqJiWAAAAAZ-oob3ABWFsaWNlCnRvb2xzL2NhbGwGZGVwbG95K2tEbmJfRHNJV3dVeHR5ZDRMRkpQRTNRcndrMzQySkVKVmZWcDRqX3pncHcieCI.mUjsEUmL6s2ABKF9ni26y7OD-b2yuOayHf8saDglUWo",
	"s2.k1.AgAAAAGfqJiWAAAAAZ-oob3ABWFsaWNlCnRvb2xzL2NhbGwGZGVwbG95K05DbWhRYzdoWnk5VE1QMk1TRlZIRUo3YnZET0lPUktTNGFkVExWUjNWaTR7InNlcnZpY2UiOiJhdXRoLXNlcnZpY2UiLCJ2ZXJzaW9uIjoiMi40LjEifQ.xSYBmhsrvbLK83m8YXFce-o7e035htflp0R1wFaw8TI",
	"s2.k1.AgAAAAGfqJiWAAAAAZ-oob3ABWFsaWNlCnRvb2xzL2NhbGwGZGVwbG95K05DbWhRYzdoWnk5VE1QMk1TRlZIRUo3YnZET0lPUktTNGFkVExWUjNWaTR7ImEiOlsxLCJiIl19.VHa_CQTeT9Ri309hHgbJ1jnmj8Tm22ocHvxJzks-dAU",
	"s2.k1.AgAAAAGfqJiWAAAAAZ-oob3ABWFsaWNlCnRvb2xzL2NhbGwGZGVwbG95K05DbWhRYzdoWnk5VE1QMk1TRlZIRUo3YnZET0lPUktTNGFkVExWUjNWaTQieCI.1E0T_1IXql2vARYqE5Pi2jas-8zC6rhxvGKS4_1iT0Q",
}

func TestWireDigestsUnchanged(t *testing.T) {
	for _, w := range wireDigests {
		d, err := reqstate.ArgsDigest([]byte(w.args))
		if w.digest == "" {
			if err == nil {
				t.Errorf("ArgsDigest(%q) = %s, want a refusal", w.args, d)
			}
			continue
		}
		if err != nil || d != w.digest {
			t.Errorf("ArgsDigest(%q) = %q, %v, want %q", w.args, d, err, w.digest)
		}
	}
}

// States issued before still open, with the same payload.
func TestWireStatesOpen(t *testing.T) {
	i := 0
	for _, mode := range modes {
		c, err := reqstate.New(&reqstate.Options{Mode: mode, Keys: []keys.Key{key("k1", 1)}, Now: newClock().Now})
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range wireTokenArgs {
			for _, p := range wirePayloads() {
				s := wireStates[i]
				i++
				b, err := c.Bind(toolReq("alice", "deploy", args, s))
				if err != nil {
					t.Fatal(err)
				}
				got := reflect.New(reflect.TypeOf(p))
				if err := c.Unseal(context.Background(), b, s, got.Interface()); err != nil {
					t.Fatalf("%v state %d for %s: %v", mode, i-1, args, err)
				}
				want, _ := json.Marshal(p)
				have, _ := json.Marshal(got.Elem().Interface())
				if string(want) != string(have) {
					t.Errorf("%v state %d: payload %s, want %s", mode, i-1, have, want)
				}
			}
		}
	}
}

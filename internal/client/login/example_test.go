package login_test

import (
	"fmt"

	"github.com/askback/askback/internal/client/login"
)

// Two spellings of one server share a cached login.
func ExampleKey() {
	k, _ := login.Key("HTTPS://MCP.Example.com:443/mcp#top")
	fmt.Println(k)
	// Output: https://mcp.example.com/mcp
}

// With --no-browser the person pastes the address the browser ended on.
func ExampleParsePasted() {
	res, err := login.ParsePasted("http://127.0.0.1:8976/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj")
	fmt.Println(res.Code, res.State, err)
	_, err = login.ParsePasted("http://127.0.0.1:8976/callback?error=access_denied&error_description=The+user+said+no")
	fmt.Println(err)
	// Output:
	// SplxlOBeZQQYbYS6WxSbIA af0ifjsldkj <nil>
	// the authorization server refused the login: access_denied (The user said no)
}

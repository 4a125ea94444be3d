package login

import "strconv"

// A Setting is one of Settings' choices that an error can point at as
// the way on. The login does not know how its caller names them (the CLI
// has flags and a profile, a program has the fields of Settings):
// Settings.Name words each.
type Setting int

const (
	// SettingClientID is Settings.ClientID.
	SettingClientID Setting = iota + 1
	// SettingClientSecret is Settings.ClientSecret.
	SettingClientSecret
	// SettingClientMetadataURL is Settings.ClientMetadataURL.
	SettingClientMetadataURL
	// SettingClientCredentials is Settings.ClientCredentials.
	SettingClientCredentials
	// SettingClientKeyFile is Settings.ClientKeyFile.
	SettingClientKeyFile
	// SettingAssertionFile is Settings.AssertionFile.
	SettingAssertionFile
	// SettingIDTokenFile is Settings.IDTokenFile.
	SettingIDTokenFile
	// SettingIdPIssuer is Settings.IdPIssuer.
	SettingIdPIssuer
	// SettingIdPClientID is Settings.IdPClientID.
	SettingIdPClientID
	// SettingScopes is one of Settings.Scopes.
	SettingScopes
	// SettingRedirectURL is Settings.RedirectURL.
	SettingRedirectURL
	// SettingNoBrowser is Settings.NoBrowser.
	SettingNoBrowser
	// SettingTimeout is Settings.Timeout, the login's own time limit.
	SettingTimeout
	// SettingRequestTimeout is the time limit of the request that needed
	// the login (the caller's, not a field of Settings).
	SettingRequestTimeout
	// SettingConnectTimeout is the time limit of connecting (starting or
	// reaching the server and the initialize handshake) when a login is
	// needed to connect (the caller's, not a field of Settings).
	SettingConnectTimeout
	// SettingHeaders is the headers sent with every request to the server
	// (the caller's, not a field of Settings): how to send credentials
	// other than an OAuth login's.
	SettingHeaders
)

// String words the setting as the field of Settings that holds it.
func (set Setting) String() string {
	switch set {
	case SettingClientID:
		return "Settings.ClientID"
	case SettingClientSecret:
		return "Settings.ClientSecret"
	case SettingClientMetadataURL:
		return "Settings.ClientMetadataURL"
	case SettingClientCredentials:
		return "Settings.ClientCredentials"
	case SettingClientKeyFile:
		return "Settings.ClientKeyFile"
	case SettingAssertionFile:
		return "Settings.AssertionFile"
	case SettingIDTokenFile:
		return "Settings.IDTokenFile"
	case SettingIdPIssuer:
		return "Settings.IdPIssuer"
	case SettingIdPClientID:
		return "Settings.IdPClientID"
	case SettingScopes:
		return "Settings.Scopes"
	case SettingRedirectURL:
		return "Settings.RedirectURL"
	case SettingNoBrowser:
		return "Settings.NoBrowser"
	case SettingTimeout:
		return "Settings.Timeout"
	case SettingRequestTimeout:
		return "the request's time limit"
	case SettingConnectTimeout:
		return "the connect's time limit"
	case SettingHeaders:
		return "the target's headers"
	}
	return "Setting(" + strconv.Itoa(int(set)) + ")"
}

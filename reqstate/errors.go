package reqstate

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The reasons a state is refused. [Open] wraps exactly one of them; test with
// errors.Is.
var (
	// ErrMissing: the request carries no requestState.
	ErrMissing = errors.New("requestState is missing")
	// ErrTooLarge: the requestState is longer than Options.MaxSize.
	ErrTooLarge = errors.New("requestState is too large")
	// ErrTampered: the requestState is malformed, was changed, was made
	// with another codec mode or key, or was not made by this server.
	ErrTampered = errors.New("requestState failed verification")
	// ErrUnknownKey: the requestState names a key id that is not (or no
	// longer) among the codec's keys.
	ErrUnknownKey = errors.New("requestState was sealed with an unknown or retired key")
	// ErrExpired: the requestState's expiry has passed.
	ErrExpired = errors.New("requestState has expired")
	// ErrClockSkew: the requestState was issued further in the future, or
	// expires further ahead, than Options.TTL and Options.MaxSkew allow: the
	// clock of the instance that issued it is off, or it was made to outlive
	// its TTL.
	ErrClockSkew = errors.New("requestState was issued beyond the allowed clock skew")
	// ErrOtherUser: the requestState was issued to another user.
	ErrOtherUser = errors.New("requestState belongs to another user")
	// ErrOtherRequest: the requestState was issued for another method,
	// tool, prompt, resource or other arguments.
	ErrOtherRequest = errors.New("requestState belongs to another request")
	// ErrReused: the requestState is single use and was opened before.
	ErrReused = errors.New("requestState was already used")
)

// ErrAmbiguousArguments is wrapped by [Codec.Issue], [Open] and [ArgsDigest]
// when the request's arguments hold an object, at any depth, with a key twice
// or with keys that differ only in letter case ({"To":"mallory","to":"bob"}).
// Such arguments have no one meaning to bind a state to. It is the client's
// mistake, not a refusal of a state: [ClientError] turns it into an
// invalid-params error that says what to fix.
var ErrAmbiguousArguments = errors.New("the arguments are ambiguous")

var refusals = []error{ErrMissing, ErrTooLarge, ErrTampered, ErrUnknownKey, ErrExpired, ErrClockSkew, ErrOtherUser, ErrOtherRequest, ErrReused}

// IsRefusal reports whether err says that a requestState was refused (as
// opposed to a failure of the server, such as an unreachable replay store).
func IsRefusal(err error) bool {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}

// ClientMessage is the message of the error [ClientError] returns for every
// refused state.
const ClientMessage = "requestState is invalid or expired; send the request again without requestState and inputResponses"

// AmbiguousArgumentsMessage is the message of the error [ClientError] returns
// for arguments that wrap [ErrAmbiguousArguments].
const AmbiguousArgumentsMessage = "arguments are ambiguous: an object has the same key twice, or keys that differ only in letter case; send each key once"

// ClientError turns an error from [Codec.Issue] or [Open] into the error to return to the
// client. Every refusal becomes the same JSON-RPC invalid-params error
// ([ClientMessage]), so the client learns nothing about which check failed;
// ambiguous arguments ([ErrAmbiguousArguments]) become an invalid-params
// error saying so; any other error becomes an internal error that hides its
// cause. A nil err gives nil.
//
// The result is a *jsonrpc.Error, which the go-sdk sends as a JSON-RPC error
// even from a tool handler (other errors become a tool result with isError).
// Log err itself on the server if you want the reason.
func ClientError(err error) error {
	if err == nil {
		return nil
	}
	if IsRefusal(err) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: ClientMessage}
	}
	if errors.Is(err, ErrAmbiguousArguments) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: AmbiguousArgumentsMessage}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "could not check requestState; try again later"}
}

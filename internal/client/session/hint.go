package session

// A Setting is a choice of the session's caller that an error can point
// at as the way on. The session does not know how its caller names its
// settings (the CLI has flags, asktest has options, a script has lines):
// Options.Hint words each, and the error carries it as a Setting too.
type Setting int

const (
	// SettingSampling declares sampling and gives the replies
	// (Options.Sampler, Options.DeclareSampling).
	SettingSampling Setting = iota + 1
	// SettingSampleReplies gives more model replies than were given.
	SettingSampleReplies
	// SettingRoots declares the roots (Options.Roots).
	SettingRoots
	// SettingProtocol is the protocol version spoken (Options.Protocol);
	// the hint's value is the version to give, if one is known.
	SettingProtocol
	// SettingMaxRounds bounds the rounds of a call (Options.MaxRounds).
	SettingMaxRounds
	// SettingTasks declares the tasks extension (Options.Tasks).
	SettingTasks
	// SettingValidate checks answers against their forms before they are
	// sent (Options.Validate).
	SettingValidate
	// SettingConnectTimeout bounds starting or reaching the server and
	// the initialize handshake (Options.ConnectTimeout).
	SettingConnectTimeout
)

// Hint words the way on that an error of the session points at, in the
// caller's terms: for example "give --sample TEXT to answer it". value is
// the value to give, when the session knows it (a protocol version).
type Hint func(s Setting, value string) string

// defaultHint words a setting as the field of Options that holds it.
func defaultHint(s Setting, value string) string {
	switch s {
	case SettingSampling:
		return "declare sampling (Options.Sampler or DeclareSampling) to answer it"
	case SettingSampleReplies:
		return "give one more model reply"
	case SettingRoots:
		return "set Options.Roots to answer it"
	case SettingProtocol:
		if value != "" {
			return "set Options.Protocol to " + value
		}
		return "leave Options.Protocol empty to speak the newest version both know"
	case SettingMaxRounds:
		return "raise Options.MaxRounds if this is intended"
	case SettingTasks:
		return "set Options.Tasks"
	case SettingValidate:
		return "clear Options.Validate to send it anyway"
	case SettingConnectTimeout:
		return "raise Options.ConnectTimeout if the server needs longer to start"
	}
	return ""
}

// hint words s in the caller's terms.
func (s *Session) hint(set Setting, value string) string {
	if s.opts.Hint != nil {
		if h := s.opts.Hint(set, value); h != "" {
			return h
		}
	}
	return defaultHint(set, value)
}

// A HintedError is an error whose way on is a setting of the session's
// caller (errors.As finds it inside a *Error): the message already holds
// the hint, worded by Options.Hint.
type HintedError struct {
	Err     error
	Setting Setting
	Value   string
	Hint    string
}

func (e *HintedError) Error() string { return e.Err.Error() + "; " + e.Hint }

func (e *HintedError) Unwrap() error { return e.Err }

// hinted wraps err with the hint of setting set.
func (s *Session) hinted(err error, set Setting, value string) error {
	return &HintedError{Err: err, Setting: set, Value: value, Hint: s.hint(set, value)}
}

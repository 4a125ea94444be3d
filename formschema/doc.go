// Package formschema models the restricted JSON Schema that MCP form-mode
// elicitation allows: a flat object whose properties are strings, numbers,
// integers, booleans, and single- or multi-select enums, each with an
// optional title, description and default.
//
// It is shared by both faces of the project. The tester parses a server's
// requested schema with [Parse] to build a form, fill defaults
// ([Schema.ApplyDefaults]) and check an answer before sending it
// ([Schema.Validate]); the server toolkit uses the same checks to refuse a
// schema outside the subset before it is ever sent, and to validate the
// answers it receives.
//
// Every error names the field it is about, so a user can find it.
package formschema

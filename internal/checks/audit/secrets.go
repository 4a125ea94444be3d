package audit

import (
	"fmt"

	"github.com/askback/askback/form"
	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/checks/schemaargs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretIn returns the secret term found in text, or "", by the project's one
// secret-field policy (the one form.New enforces and the interactive forms
// warn with).
func secretIn(text string) string { return form.DefaultSecretPolicy().Match(text) }

// secretFields lists the fields of a form question that ask for a secret,
// judged by field name, title and description.
func secretFields(p *mcp.ElicitParams) []string {
	var out []string
	check := func(field, what, text string) {
		if t := secretIn(text); t != "" {
			out = append(out, fmt.Sprintf("field %q: %s %q names a secret (%s)", field, what, text, t))
		}
	}
	if form, err := formschema.Parse(p.RequestedSchema); err == nil {
		for _, f := range form.Fields {
			check(f.Name, "name", f.Name)
			check(f.Name, "title", f.Title)
			check(f.Name, "description", f.Description)
		}
		return out
	}
	// Outside the subset: look at what can be read.
	for name, prop := range schemaargs.Map(schemaargs.Map(p.RequestedSchema)["properties"]) {
		pm := schemaargs.Map(prop)
		title, _ := pm["title"].(string)
		desc, _ := pm["description"].(string)
		check(name, "name", name)
		check(name, "title", title)
		check(name, "description", desc)
	}
	return out
}

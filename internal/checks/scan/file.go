package scan

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askback/askback/internal/encoding/strictjson"
)

// MaxCatalogFile bounds the size of a catalog file that is read.
const MaxCatalogFile = 64 << 20

// ReadCatalogs reads the servers of a catalog file: one catalog, with
// the members of Catalog (server, instructions, tools, prompts,
// resources, resourceTemplates, the names a catalog snapshot uses; other
// members are left alone), or the corpus's forms {"catalog": {…}} and
// {"servers": [{"name": …, "catalog": {…}}, …]}. A catalog without a
// server name is named name. A key twice in one object is refused: which
// of the two would have been read?
func ReadCatalogs(name string, data []byte) ([]Server, error) {
	if len(data) > MaxCatalogFile {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, MaxCatalogFile>>20)
	}
	if err := strictjson.CheckRepeats(data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %w", name, err)
	}
	if _, ok := top["catalog"]; ok {
		var doc struct {
			Catalog *Catalog `json:"catalog"`
		}
		if err := json.Unmarshal(data, &doc); err != nil || doc.Catalog == nil {
			return nil, fmt.Errorf("%s: \"catalog\" is not a catalog: %v", name, err)
		}
		return []Server{namedServer(name, doc.Catalog)}, nil
	}
	if _, ok := top["servers"]; ok {
		var doc struct {
			Servers []struct {
				Name    string   `json:"name"`
				Catalog *Catalog `json:"catalog"`
			} `json:"servers"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: \"servers\" is not a list of named catalogs: %v", name, err)
		}
		var out []Server
		for i, s := range doc.Servers {
			if s.Catalog == nil || s.Name == "" {
				return nil, fmt.Errorf("%s: servers[%d] needs a name and a catalog", name, i)
			}
			out = append(out, Server{Name: s.Name, Catalog: s.Catalog})
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: \"servers\" is empty", name)
		}
		return out, nil
	}
	known := false
	for _, k := range []string{"server", "instructions", "tools", "prompts", "resources", "resourceTemplates"} {
		_, ok := top[k]
		known = known || ok
	}
	if !known {
		return nil, errors.New(name + ": no catalog: none of server, instructions, tools, prompts, resources, resourceTemplates")
	}
	var c Catalog
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return []Server{namedServer(name, &c)}, nil
}

// namedServer is c as a server named by its server info, else name.
func namedServer(name string, c *Catalog) Server {
	if c.ServerInfo != nil && c.ServerInfo.Name != "" {
		name = c.ServerInfo.Name
	}
	return Server{Name: name, Catalog: c}
}

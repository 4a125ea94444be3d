package sarif_test

import (
	"os"

	"github.com/askback/askback/internal/report/sarif"
)

// A failed script step, located at its .mcp file and line, and a finding
// in a server's catalog, located by its JSON path.
func Example() {
	log := &sarif.Log{Runs: []*sarif.Run{{
		Tool:   sarif.Tool{Name: "mcp-tester", Version: "v1.2.0"},
		Anchor: "catalog.json", // where code scanning shows the finding in the catalog
		Rules: []sarif.Rule{
			{ID: "test/assert_contains", Short: "a step's result lacks the text it should contain", Level: sarif.Error},
			{ID: "annotation-rug-pull", Short: "a tool approved as read-only is no longer read-only", Level: sarif.Warning,
				Tags: []string{"security"}, SecuritySeverity: "8.0"},
		},
		Results: []sarif.Result{
			{RuleID: "test/assert_contains", Message: `"to staging" not found in the result`,
				Locations: []sarif.Location{{File: "examples/deployer/deploy.mcp", Line: 3, Column: 1}}},
			{RuleID: "annotation-rug-pull", Message: "tool \"export\": readOnlyHint true → false",
				Locations: []sarif.Location{{Path: "tools.export.annotations.readOnlyHint", Kind: "member"}}},
		},
	}}}
	if err := log.Write(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// {
	//   "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
	//   "version": "2.1.0",
	//   "runs": [
	//     {
	//       "tool": {
	//         "driver": {
	//           "name": "mcp-tester",
	//           "version": "1.2.0",
	//           "rules": [
	//             {
	//               "id": "annotation-rug-pull",
	//               "shortDescription": {
	//                 "text": "a tool approved as read-only is no longer read-only"
	//               },
	//               "fullDescription": {
	//                 "text": "a tool approved as read-only is no longer read-only"
	//               },
	//               "help": {
	//                 "text": "a tool approved as read-only is no longer read-only"
	//               },
	//               "defaultConfiguration": {
	//                 "level": "warning"
	//               },
	//               "properties": {
	//                 "security-severity": "8.0",
	//                 "tags": [
	//                   "security"
	//                 ]
	//               }
	//             },
	//             {
	//               "id": "test/assert_contains",
	//               "shortDescription": {
	//                 "text": "a step's result lacks the text it should contain"
	//               },
	//               "fullDescription": {
	//                 "text": "a step's result lacks the text it should contain"
	//               },
	//               "help": {
	//                 "text": "a step's result lacks the text it should contain"
	//               },
	//               "defaultConfiguration": {
	//                 "level": "error"
	//               }
	//             }
	//           ]
	//         }
	//       },
	//       "invocations": [
	//         {
	//           "executionSuccessful": true
	//         }
	//       ],
	//       "columnKind": "unicodeCodePoints",
	//       "results": [
	//         {
	//           "ruleId": "annotation-rug-pull",
	//           "ruleIndex": 0,
	//           "level": "warning",
	//           "message": {
	//             "text": "tool \"export\": readOnlyHint true → false"
	//           },
	//           "locations": [
	//             {
	//               "physicalLocation": {
	//                 "artifactLocation": {
	//                   "uri": "catalog.json"
	//                 },
	//                 "region": {
	//                   "startLine": 1
	//                 }
	//               },
	//               "logicalLocations": [
	//                 {
	//                   "fullyQualifiedName": "tools.export.annotations.readOnlyHint",
	//                   "kind": "member"
	//                 }
	//               ]
	//             }
	//           ],
	//           "partialFingerprints": {
	//             "askbackFinding/v1": "3e20a78ccbfa43e2c74a3947d8192d10"
	//           }
	//         },
	//         {
	//           "ruleId": "test/assert_contains",
	//           "ruleIndex": 1,
	//           "level": "error",
	//           "message": {
	//             "text": "\"to staging\" not found in the result"
	//           },
	//           "locations": [
	//             {
	//               "physicalLocation": {
	//                 "artifactLocation": {
	//                   "uri": "examples/deployer/deploy.mcp"
	//                 },
	//                 "region": {
	//                   "startLine": 3,
	//                   "startColumn": 1
	//                 }
	//               }
	//             }
	//           ],
	//           "partialFingerprints": {
	//             "askbackFinding/v1": "fa2fcd8c14139cb6d32bbdf579041fca"
	//           }
	//         }
	//       ]
	//     }
	//   ]
	// }
}

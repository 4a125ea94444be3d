package main

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addTaskFixtures registers the fixtures of the suite's tasks-* scenarios.
func addTaskFixtures(server *mcp.Server) {}

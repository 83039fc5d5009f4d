package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEShowsThisProgram keeps the spider in heed's README true: the
// README's first Go block must be this file, which the build compiles.
func TestREADMEShowsThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "```go\n")
	if !ok {
		t.Fatal("README has no Go block")
	}
	block, _, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("README's Go block is not closed")
	}
	if block != string(src) {
		t.Errorf("README's spider differs from examples/quickstart/main.go; update one from the other")
	}
}

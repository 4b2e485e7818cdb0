// Reads one JSON document per line and prints, per line, the JSON string of sigs.k8s.io/yaml.JSONToYAML
// for it (upstream marshals Go values to JSON and then to YAML, so this is the bytes upstream writes).
// Build (offline, from the Go module cache): GOPROXY=off GOFLAGS=-mod=mod GOSUMDB=off go build -o /tmp/yaml-oracle .
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		y, err := yaml.JSONToYAML(in.Bytes())
		if err != nil {
			fmt.Fprintln(out, `{"error":`+mustJSON(err.Error())+`}`)
			continue
		}
		fmt.Fprintln(out, mustJSON(string(y)))
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

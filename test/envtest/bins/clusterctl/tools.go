//go:build tools

// Package tools pins clusterctl's main package for the clusterctl provider test (test/envtest/bins/build-clusterctl.sh).
package tools

import _ "sigs.k8s.io/cluster-api/cmd/clusterctl"

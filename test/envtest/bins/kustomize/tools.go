//go:build tools

// Package tools pins kustomize's main package (test/envtest/bins/build-tools.sh): the reference
// renderer of config/ for the install-manifest tests and the release script.
package tools

import _ "sigs.k8s.io/kustomize/kustomize/v5"

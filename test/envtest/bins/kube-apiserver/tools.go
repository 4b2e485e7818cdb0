//go:build tools

// Package tools pins the kube-apiserver main package so that go.mod/go.sum record the exact
// module graph the test environment is built from. Nothing here is part of the product.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"

//go:build tools

// Package tools pins the Cluster API v1.13.5 manager main packages (core, kubeadm bootstrap, kubeadm
// control plane) so that go.mod/go.sum record the exact module graph the test environment builds.
// Nothing here is part of the product.
package tools

import (
	_ "sigs.k8s.io/cluster-api"
	_ "sigs.k8s.io/cluster-api/bootstrap/kubeadm"
	_ "sigs.k8s.io/cluster-api/controlplane/kubeadm"
)

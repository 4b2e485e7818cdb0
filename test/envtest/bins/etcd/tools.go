//go:build tools

// Package tools pins the etcd server main package for the test environment's etcd build.
package tools

import _ "go.etcd.io/etcd/server/v3"

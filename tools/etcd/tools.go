//go:build tools

// Package tools names the etcd server command, so that go.sum covers it.
package tools

import _ "go.etcd.io/etcd/server/v3"

// Package durable is a frontier.Frontier whose whole state lives on disk.
package durable

// Package robots is heed's robots.txt engine (RFC 9309).
package robots

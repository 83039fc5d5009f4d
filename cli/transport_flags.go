package cli

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/download"
)

// connFlags are how heed reaches sites: extra headers, a proxy, the
// certificates it trusts. crawl, fetch, select, parse, inventory and
// robots check share them, so that every request a command makes (pages,
// robots.txt, sitemaps) goes the same way.
type connFlags struct {
	headers  []string
	proxy    string
	caFile   string
	insecure bool

	// Set by check.
	header   http.Header
	proxyURL *url.URL
	roots    *x509.CertPool
}

func (f *connFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.headers, "header", "H", nil, `send this header with every request, robots.txt and sitemaps included: "Name: value" (repeatable; not User-Agent, which is --user-agent's and must name the --agent token)`)
	fs.StringVar(&f.proxy, "proxy", "", "send every request through this proxy: http://, https:// or socks5:// URL, credentials in it if needed (default: HTTPS_PROXY, HTTP_PROXY and NO_PROXY)")
	fs.StringVar(&f.caFile, "ca-file", "", "also trust the CA certificates in this PEM file (beside the system's), e.g. a staging site's, or the DIR/ca.pem heed demo writes")
	fs.BoolVar(&f.insecure, "insecure-skip-verify", false, "do not verify TLS certificates at all (anyone on the path can read and change the traffic); said loudly on stderr and in the summary")
}

// proxySchemes are the proxy schemes net/http speaks.
var proxySchemes = map[string]bool{"http": true, "https": true, "socks5": true, "socks5h": true}

// check parses the flags; a bad value is a usage error naming the flag.
func (f *connFlags) check() error {
	f.header = nil
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return &exitError{code: 2, err: &flagError{flag: "header", value: fmt.Sprintf("%q", h), want: `want "Name: value"`}}
		}
		name, value = strings.TrimSpace(name), strings.TrimLeft(value, " \t")
		if err := download.CheckHeader(name, value); err != nil {
			return &exitError{code: 2, err: &flagError{flag: "header", value: fmt.Sprintf("%q", h), want: err.Error()}}
		}
		if f.header == nil {
			f.header = http.Header{}
		}
		f.header.Add(name, value)
	}
	f.proxyURL = nil
	if f.proxy != "" {
		u, err := url.Parse(f.proxy)
		if err != nil || !proxySchemes[strings.ToLower(u.Scheme)] || u.Host == "" {
			return &exitError{code: 2, err: &flagError{flag: "proxy", value: fmt.Sprintf("%q", redactURL(f.proxy)), want: "want a proxy URL: http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT"}}
		}
		f.proxyURL = u
	}
	if f.caFile != "" && f.insecure {
		return usageError("--ca-file and --insecure-skip-verify: choose one (with --insecure-skip-verify no certificate is checked)")
	}
	f.roots = nil
	if f.caFile != "" {
		pem, err := os.ReadFile(f.caFile)
		if err != nil {
			return &exitError{code: 2, err: &flagError{flag: "ca-file", want: err.Error()}}
		}
		roots, err := x509.SystemCertPool()
		if err != nil || roots == nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(pem) {
			return &exitError{code: 2, err: &flagError{flag: "ca-file", value: f.caFile, want: "holds no PEM certificate"}}
		}
		f.roots = roots
	}
	return nil
}

// transport is the transport the flags ask for: heed's default one with
// the proxy and certificates changed; nil when no flag changes it.
func (f *connFlags) transport() *http.Transport {
	if f.proxyURL == nil && f.roots == nil && !f.insecure {
		return nil
	}
	t := download.DefaultTransport()
	if f.proxyURL != nil {
		t.Proxy = http.ProxyURL(f.proxyURL)
	}
	if f.roots != nil || f.insecure {
		t.TLSClientConfig = &tls.Config{RootCAs: f.roots, InsecureSkipVerify: f.insecure, MinVersion: tls.VersionTLS12} //nolint:gosec // asked for, and said
	}
	return t
}

// crawlerOptions are the crawler options of the flags, which always win
// over a spider's own (they are given only when asked for).
func (f *connFlags) crawlerOptions() []crawler.Option {
	var opts []crawler.Option
	if t := f.transport(); t != nil {
		opts = append(opts, crawler.WithTransport(t))
	}
	if len(f.header) > 0 {
		opts = append(opts, crawler.WithHeaders(f.header))
	}
	return opts
}

// insecureWarning is said on stderr when a command starts with
// --insecure-skip-verify, and again in a crawl's summary.
const insecureWarning = "WARNING: --insecure-skip-verify: TLS certificates are NOT verified; anyone between heed and the sites can read and change this traffic"

// warn says, at the start of a command, what the flags weaken.
func (f *connFlags) warn(w io.Writer, program string) {
	if f.insecure {
		fmt.Fprintf(w, "%s: %s\n", program, insecureWarning)
	}
}

// maxBodyFlag is --max-body: where a response body is cut.
type maxBodyFlag struct{ maxBody sizeValue }

func (f *maxBodyFlag) register(fs *pflag.FlagSet) {
	f.maxBody.n = 10 << 20
	fs.Var(&f.maxBody, "max-body", "cut a response body after this size, after decompression (1048576, 512KiB, 10MiB ...); a cut page is counted in the summary and marked truncated in its item")
}

func (f *maxBodyFlag) check() error {
	if f.maxBody.n < 1 || f.maxBody.n > int64(^uint(0)>>1) {
		return &exitError{code: 2, err: &flagError{flag: "max-body", value: formatSize(f.maxBody.n), want: "must be at least 1 byte"}}
	}
	return nil
}

func (f *maxBodyFlag) bytes() int { return int(f.maxBody.n) }

// retryFlags are --retries and --retry-wait: how a failed request (a
// network error, 408, 429, 5xx) is tried again.
type retryFlags struct {
	retries int
	wait    time.Duration
}

func (f *retryFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.retries, "retries", 2, "try a failed request (network error, 408, 429, 500, 502, 503, 504) this many more times; then its status is kept, or a network error skip-logged as fetch-error")
	fs.DurationVar(&f.wait, "retry-wait", 2*time.Second, "the wait before the first retry, doubling each time (a longer Retry-After wins)")
}

func (f *retryFlags) check() error {
	return firstError(atLeastN("retries", f.retries, 0, "must be 0 (no retry) or more"), atLeast("retry-wait", f.wait, time.Nanosecond))
}

// options adds the retry policy: a given flag's (with the other at its
// value) wins over the spider's.
func (f *retryFlags) options(l *optionList) {
	o := crawler.WithRetries(f.retries, f.wait)
	if l.fs.Changed("retries") || l.fs.Changed("retry-wait") {
		l.given = append(l.given, o)
	} else {
		l.defaults = append(l.defaults, o)
	}
}

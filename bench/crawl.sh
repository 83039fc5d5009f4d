#!/usr/bin/env bash
# crawl.sh runs heed's whole-crawl benchmarks (bench/crawlbench) and keeps
# their reports in bench/out/. See bench/README.md.
#
#   bench/crawl.sh                  both benchmarks, 3 interleaved runs each
#   bench/crawl.sh --smoke          a tiny site, seconds in all
#   bench/crawl.sh --runs 5 --only throughput
#   bench/crawl.sh --profile        also one profiled run per crawler
#   bench/crawl.sh --rev HEAD       measure a commit, not the work tree
#   bench/crawl.sh --load 2         run 2 busy loops beside the crawls
#   bench/crawl.sh -- -workers 64   pass flags on to crawlbench
set -euo pipefail

runs=3
smoke=0
only=""
profile=0
rev=""
load=0
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs="$2"; shift 2 ;;
	--smoke) smoke=1; shift ;;
	--only) only="$2"; shift 2 ;;
	--profile) profile=1; shift ;;
	--rev) rev="$2"; shift 2 ;;
	--load) load="$2"; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "crawl.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
case "$only" in ""|throughput|politeness) ;; *) echo "crawl.sh: --only throughput or politeness" >&2; exit 2 ;; esac
case "$load" in [0-9]|1[0-6]) ;; *) echo "crawl.sh: --load takes 0 to 16 busy loops" >&2; exit 2 ;; esac

src=""
hogs=()
cleanup() {
	if [ "${#hogs[@]}" -gt 0 ]; then kill "${hogs[@]}" 2>/dev/null || true; fi
	if [ -n "$src" ]; then rm -rf "$src"; fi
}
trap cleanup EXIT

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/bench/out"
mkdir -p "$out"
bin="$out/crawlbench"

if [ -n "$rev" ]; then
	# Build the named commit from a clean export, so that edits in the
	# work tree do not leak into the figures.
	sha="$(git rev-parse --verify "$rev^{commit}")"
	src="$(mktemp -d)"
	git archive "$sha" | tar -x -C "$src"
	(cd "$src" && go build -ldflags "-X main.buildRevision=$sha" -o "$bin" ./bench/crawlbench)
else
	go build -o "$bin" ./bench/crawlbench
fi

# Busy loops stand in for the rest of a loaded machine: they show what
# pacing and throughput do when the crawler and the site wait for a CPU.
# Each stops by itself after an hour at most; cleanup stops them sooner.
for _ in $(seq 1 "$load"); do
	timeout 3600 sh -c 'while :; do :; done' &
	hogs+=("$!")
done

stamp="$(date -u +%Y%m%d-%H%M%S)"
report="$out/crawl-$stamp.md"
: > "$report"
run() {
	local bench="$1"; shift
	local args=(-runs "$runs" -out "$out")
	if [ "$profile" = 1 ]; then
		args+=(-profile "$out/prof-$stamp")
	fi
	"$bin" "$bench" "${args[@]}" "$@" "${extra[@]}" | tee -a "$report"
	echo | tee -a "$report"
}

if [ -z "$only" ] || [ "$only" = throughput ]; then
	if [ "$smoke" = 1 ]; then run throughput -hosts 5 -pages 40 -timeout 60s; else run throughput; fi
fi
if [ -z "$only" ] || [ "$only" = politeness ]; then
	# Twice: one request in flight per host (heed's default), then eight
	# (the throughput setting), whose requests are spaced only by when
	# they were booked.
	for per in 1 8; do
		if [ "$smoke" = 1 ]; then
			run politeness -per-host "$per" -hosts 3 -pages 10 -timeout 60s
		else
			run politeness -per-host "$per"
		fi
	done
fi

if [ "$profile" = 1 ]; then
	for p in "$out/prof-$stamp"/*.pprof; do
		[ -e "$p" ] || continue
		echo "#### $(basename "$p")" | tee -a "$report"
		case "$p" in
		*.heap.pprof) go tool pprof -top -nodecount=25 -sample_index=inuse_space "$p" 2>/dev/null | tee -a "$report" ;;
		*) go tool pprof -top -cum -nodecount=40 "$p" 2>/dev/null | tee -a "$report" ;;
		esac
	done
fi
echo "report: $report"

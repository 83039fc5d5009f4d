#!/usr/bin/env bash
# fleet.sh measures a crawl shared by several heed processes through one
# Redis (heed crawl --redis) with bench/fleetbench, and keeps the report in
# bench/out/. See bench/README.md.
#
#   bench/fleet.sh                 1, 2 and 4 processes, 3 interleaved runs each
#   bench/fleet.sh --runs 5
#   bench/fleet.sh --smoke         a tiny site, seconds in all
#   bench/fleet.sh -- -workers 4   pass flags on to fleetbench
set -euo pipefail

runs=3
smoke=0
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs="$2"; shift 2 ;;
	--smoke) smoke=1; shift ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "fleet.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/bench/out"
mkdir -p "$out"
go build -o "$out/fleetbench" ./bench/fleetbench

stamp="$(date -u +%Y%m%d-%H%M%S)"
report="$out/fleet-$stamp.md"
args=(-runs "$runs" -out "$out")
if [ "$smoke" = 1 ]; then
	args+=(-hosts 10 -pages 10)
fi
echo "\$ fleetbench ${args[*]} ${extra[*]:-}" | tee "$report"
"$out/fleetbench" "${args[@]}" "${extra[@]}" 2>&1 | tee -a "$report"
echo "report: $report"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The plot of BENCHMARKS.md section 9 (issue 23): each command's time and
# peak RSS against the number of runs in the fleet, log-log, one line per
# command, from the data tools/bench-fleet-scale.sh -o writes:
#   sh tools/plot-fleet-scale.sh DATA OUT.svg
# Needs gnuplot (Debian gnuplot-nox).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 DATA OUT.svg" >&2; exit 2; }
data=$1 out=$2
[ -s "$data" ] || { echo "plot-fleet-scale: $data is empty or missing" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-fleet-scale: no gnuplot (Debian package gnuplot-nox)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/plot-fleet-scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# One gnuplot data block per command, in the order they first appear:
# "runs seconds MB", blocks separated by two blank lines, names apart.
awk '{
	name = $0; sub(/^[0-9]+ "/, "", name); sub(/".*/, "", name)
	n = split($0, f, " ")
	if (!(name in idx)) { idx[name] = k++; names[idx[name]] = name }
	rows[idx[name]] = rows[idx[name]] f[1] " " f[n - 1] " " f[n] "\n"
} END {
	for (i = 0; i < k; i++) {
		printf "%s\n\n", rows[i] > blocks
		print names[i] > titles
	}
}' blocks="$tmp/blocks" titles="$tmp/titles" "$data"
nblocks=$(wc -l <"$tmp/titles")
cat >"$tmp/plot.gp" <<GP
set terminal svg size 1000,520 font 'sans,10' noenhanced
set output '$out'
set multiplot layout 1,2 title 'idlelab: each command against the fleet size (tools/bench-fleet-scale.sh)'
set logscale xy
set xlabel 'runs in the fleet'
set key left top font ',8'
set grid
set ylabel 'time (s)'
plot for [i=0:$((nblocks - 1))] '$tmp/blocks' index i using 1:2 with linespoints \
	title system(sprintf("sed -n %dp '$tmp/titles'", i + 1))
set ylabel 'peak RSS (MB)'
unset key
plot for [i=0:$((nblocks - 1))] '$tmp/blocks' index i using 1:3 with linespoints
unset multiplot
GP
gnuplot "$tmp/plot.gp"
echo "plot-fleet-scale: $out ($nblocks commands)"

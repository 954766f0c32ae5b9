#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The stand-in for apt-get that tests/integration/test_install_plan.sh
# puts behind IDLELAB_APT (tools/deps.sh) inside a pristine bookworm root.
# Each `apt-get install` line a setup script would run is resolved with
# `apt-get -s` against what the earlier lines left installed, and fails
# when apt cannot resolve it, when it would upgrade, downgrade or remove
# a package the line does not name, or when it would take from
# bookworm-backports a package the line does not name that bookworm has
# too.  A line that passes is then "installed" by writing its packages'
# stanzas into the root's dpkg status, so that the next line, and the
# scripts' own dpkg-query checks, see what a real install would leave;
# nothing is downloaded or unpacked.  `apt-get update` runs for real.
#
# Writes to $IDLELAB_APT_LOG: "PLAN who: the line", one "  name version
# (origin)" per package, "STAGE who: N new, N upgraded, N kB", and on a
# broken rule "FAIL who: why".  $IDLELAB_APT_WHO names the stage.
set -u
log=${IDLELAB_APT_LOG:?IDLELAB_APT_LOG names the plan log}
who=${IDLELAB_APT_WHO:-unnamed stage}
status=/var/lib/dpkg/status
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL $who: $*" >>"$log"; echo "apt-plan-check: $who: $*" >&2; }

case ${1:-} in
update) exec apt-get "$@" ;;
install) shift ;;
*) fail "unexpected apt-get $*"; exit 1 ;;
esac

named=
args=
for a in "$@"; do
	case $a in
	-*) ;;
	*) named="$named ${a%%[=/]*}"; args="$args $a" ;;
	esac
done
echo "PLAN $who: apt-get install$args" >>"$log"
# shellcheck disable=SC2086
if ! apt-get -s -o Debug::NoLocking=1 install --no-install-recommends $args \
	>"$work/sim" 2>&1; then
	fail "apt cannot resolve the line"
	sed 's/^/    /' "$work/sim" | grep -v '^    \(Reading\|Building\)' >>"$log"
	exit 1
fi

# "name|old|version|origin" per Inst line (old is empty for a new
# package); Remv lines as "name".
sed -n 's/^Inst \([^ ]*\) \(\[\([^]]*\)\] \)\{0,1\}(\([^ ]*\) \(.*\) \[[^]]*\]).*/\1|\3|\4|\5/p' \
	"$work/sim" >"$work/inst"
sed -n 's/^Remv \([^ ]*\).*/\1/p' "$work/sim" >"$work/remv"

bad=0
while read -r p; do
	fail "removes $p"
	bad=1
done <"$work/remv"

new=0
upg=0
: >"$work/want"
while IFS='|' read -r name old ver origin; do
	base=${name%%:*}
	case " $named " in *" $base "*) isnamed=1 ;; *) isnamed=0 ;; esac
	if [ -n "$old" ]; then
		upg=$((upg + 1))
		if [ $isnamed = 0 ]; then
			fail "changes $base from $old to $ver, which no line names"
			bad=1
		fi
	else
		new=$((new + 1))
	fi
	case $origin in
	*Backports*)
		if [ $isnamed = 0 ] &&
			apt-cache madison "$base" | grep -v -- -backports | grep -q .; then
			fail "takes $base $ver from bookworm-backports, which no line names (bookworm has it)"
			bad=1
		fi
		;;
	esac
	echo "  $base $ver ($origin)${old:+ upgrades $old}" >>"$log"
	echo "$name=$ver" >>"$work/want"
done <"$work/inst"
[ $bad = 0 ] || exit 1

# "Install": the chosen versions' stanzas, marked installed, replace any
# older stanza of the same package in the status file.
if [ -s "$work/want" ]; then
	# shellcheck disable=SC2046
	apt-cache show $(cat "$work/want") >"$work/show" 2>/dev/null || {
		fail "apt-cache show failed for the chosen versions"
		exit 1
	}
	kb=$(awk '/^Size: / { s += $2 } END { printf "%d", s / 1024 }' "$work/show")
	awk -v RS= -v ORS='\n\n' '
	{
		n = split($0, l, "\n"); pkg = ""; out = ""; cut = 0
		for (i = 1; i <= n; i++) {
			if (l[i] ~ /^Package: /) pkg = substr(l[i], 10)
			# A field left out takes its continuation lines with it.
			if (l[i] ~ /^[ \t]/) { if (cut) continue }
			else cut = (l[i] ~ /^(Filename|Size|MD5sum|SHA1|SHA256|SHA512|Description-md5|Tag):/)
			if (cut) continue
			sub(/^Description-en:/, "Description:", l[i])
			out = out l[i] "\n"
			if (l[i] ~ /^Package: /) out = out "Status: install ok installed\n"
		}
		if (pkg in seen) next
		seen[pkg] = 1
		sub(/\n$/, "", out)
		print out
	}' "$work/show" >"$work/stanzas"
	awk -v RS= -v ORS='\n\n' 'NR == FNR { if (match($0, /Package: [^\n]*/)) drop[substr($0, RSTART + 9, RLENGTH - 9)] = 1; next }
	{ if (match($0, /Package: [^\n]*/) && (substr($0, RSTART + 9, RLENGTH - 9) in drop)) next; print }' \
		"$work/stanzas" "$status" >"$work/status"
	cat "$work/stanzas" >>"$work/status"
	cp "$work/status" "$status"
	# What a real install would leave must be consistent: a line whose
	# packages do not, fails here rather than confuse the next one.
	if ! apt-get check >"$work/check" 2>&1; then
		fail "what the line installs leaves broken dependencies"
		sed 's/^/    /' "$work/check" >>"$log"
		exit 1
	fi
else
	kb=0
fi
echo "STAGE $who: $new new, $upg upgraded, $kb kB to download" >>"$log"

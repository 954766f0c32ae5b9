#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fleet campaigns (fleet/) end to end over real SSH, with no network
# addresses: three hosts are network namespaces (ip netns add, lo up), each
# SSH connection starts its own sshd inside the namespace through an
# ssh_config ProxyCommand (`ip netns exec %h /usr/sbin/sshd -i`), with host
# and client keys made here.  The playbook runs a two-run campaign with
# throttle=1 through idlelab-fleet; three databases must come back with
# three distinct host UUIDs and their inventory names, the fleet database
# holds the sum of their runs, and merging again changes nothing.  Then a
# fourth inventory host names a namespace that does not exist: it is
# reported unreachable by name, the others are fetched and merged, and
# their finished runs are not repeated.  Also: --syntax-check and
# ansible-lint (offline).  Where `ip netns` is not permitted the three
# hosts fall back to ansible_connection=local (and say so).
. tests/lib.sh

FLEET=fleet
q() { sqlite3 -batch -noheader "$1" "$2"; }

if ! command -v ansible-playbook >/dev/null 2>&1; then
	skip "fleet tests" "ansible-playbook not installed (apt-get install ansible-core)"
	t_done
	exit
fi

# --- lint -----------------------------------------------------------------
check "ansible-playbook --syntax-check" env ANSIBLE_CONFIG=$FLEET/ansible.cfg \
	ansible-playbook -i $FLEET/inventory.example.yml --syntax-check $FLEET/playbook.yml
if ! command -v ansible-lint >/dev/null 2>&1; then
	skip "ansible-lint" "ansible-lint not installed"
else
	# Offline: no galaxy or PyPI lookups, no collection install.
	if (cd $FLEET && HOME=$T_TMP ANSIBLE_LINT_NODEPS=1 ANSIBLE_GALAXY_SERVER=http://127.0.0.1:9 \
		timeout 120 ansible-lint --offline --nocolor -p playbook.yml tasks/*.yml) >"$T_TMP/lint.out" 2>&1; then
		ok "ansible-lint --offline"
	elif grep -qiE 'galaxy|network|connection|urlopen|could not (download|resolve)' "$T_TMP/lint.out"; then
		skip "ansible-lint" "cannot run offline: $(grep -iE 'galaxy|network|connection|urlopen' "$T_TMP/lint.out" | head -1)"
	else
		not_ok "ansible-lint --offline"
		sed 's/^/#   /' "$T_TMP/lint.out" | head -20
	fi
fi

# --- the three hosts --------------------------------------------------------
S=$T_TMP/ssh
mkdir -p "$S" "$T_TMP/cp"
chmod 700 "$S" "$T_TMP/cp"
ssh-keygen -q -t ed25519 -N '' -f "$S/host_key" -C idlelab-test-host
ssh-keygen -q -t ed25519 -N '' -f "$S/id" -C idlelab-test-client
cp "$S/id.pub" "$S/authorized_keys"
echo "idlelab-test-host $(cut -d' ' -f1-2 "$S/host_key.pub")" >"$S/known_hosts"
cat >"$S/sshd_config" <<EOF2
HostKey $S/host_key
AuthorizedKeysFile $S/authorized_keys
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
LogLevel ERROR
Subsystem sftp internal-sftp
EOF2
cat >"$S/ssh_config" <<EOF2
Host *
	User root
	IdentityFile $S/id
	IdentitiesOnly yes
	HostKeyAlias idlelab-test-host
	UserKnownHostsFile $S/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
	ConnectTimeout 20
	ProxyCommand ip netns exec %h /usr/sbin/sshd -i -f $S/sshd_config
EOF2
mkdir -p /run/sshd 2>/dev/null

NS="idlelab-fl-$$-a idlelab-fl-$$-b idlelab-fl-$$-c"
GHOST=idlelab-fl-$$-nonexistent
made=
cleanup() {
	for sock in "$T_TMP"/cp/*; do
		[ -S "$sock" ] && ssh -F "$S/ssh_config" -o ControlPath="$sock" -O exit x >/dev/null 2>&1
	done
	for n in $made; do ip netns delete "$n" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mode=netns
# IDLELAB_FLEET_TEST_LOCAL=1 takes the fallback on purpose (to test it).
[ "${IDLELAB_FLEET_TEST_LOCAL:-0}" = 1 ] && NS_TRY= || NS_TRY=$NS
[ -z "$NS_TRY" ] && { mode=local; echo "forced by IDLELAB_FLEET_TEST_LOCAL=1" >"$T_TMP/netns.err"; }
for n in $NS_TRY; do
	if ! ip netns add "$n" 2>"$T_TMP/netns.err"; then
		mode=local
		break
	fi
	made="$made $n"
	ip -n "$n" link set lo up
done
if [ "$mode" = local ]; then
	diag "FALLBACK: ip netns not permitted ($(head -1 "$T_TMP/netns.err")); the three hosts use ansible_connection=local"
	for n in $made; do ip netns delete "$n" 2>/dev/null; done
	made=
fi

# --- inventory and campaign -------------------------------------------------
C=$T_TMP/fleet-test.yaml
cat >"$C" <<'EOF2'
name: fleettest
description: two short tsc_gaps runs per host
groups:
  - bench: tsc_gaps
    cpus: "0"
    repetitions: 2
    params: {duration_ms: 50}
EOF2
inventory() {  # inventory FILE [GHOST]
	{
		echo "all:"
		echo "  vars:"
		echo "    ansible_python_interpreter: /usr/bin/python3"
		echo "    ansible_ssh_common_args: -F $S/ssh_config"
		echo "    ansible_control_path_dir: $T_TMP/cp"
		# The masters must outlive the whole run for "one SSH master per
		# inventory host" to count them: fleet/ansible.cfg's 120 s is
		# shorter than a run on a loaded 2-CPU machine.  The test's
		# cleanup closes them.
		echo "    ansible_ssh_args: -o ControlMaster=auto -o ControlPersist=30m -o ServerAliveInterval=30"
		echo "    idlelab_binary: $IDLELAB"
		echo "    idlelab_prefix: $T_TMP/prefix"
		echo "    idlelab_install_deps: false"
		echo "    idlelab_poll_s: 1"
		echo "    idlelab_throttle: 1"
		echo "  children:"
		echo "    lab:"
		echo "      hosts:"
		for n in $NS; do
			h=${n##*-}
			echo "        host-$h:"
			if [ "$mode" = netns ]; then
				echo "          ansible_host: $n"
			else
				echo "          ansible_connection: local"
			fi
			echo "          idlelab_state_dir: $T_TMP/state-$h"
			t_new_host "$T_TMP/state-$h"
			# host-c asks for the kmods; without headers for the
			# running kernel that is a recorded skip.
			[ "$h" = c ] && [ "$KMOD_SKIP" = 1 ] &&
				echo "          idlelab_load_kmods: true"
		done
		if [ -n "${2:-}" ]; then
			echo "        host-ghost:"
			echo "          ansible_host: $2"
			echo "          ansible_connection: ssh"
			echo "          idlelab_state_dir: $T_TMP/state-ghost"
			t_new_host "$T_TMP/state-ghost"
		fi
	} >"$1"
}
KMOD_SKIP=0
[ -e "/lib/modules/$(uname -r)/build/Makefile" ] || KMOD_SKIP=1
inventory "$T_TMP/inv.yml"
inventory "$T_TMP/inv-ghost.yml" "$GHOST"

R=$T_TMP/results
export IDLELAB IDLELAB_FLEET_RESULTS=$R

# --- the fleet run ----------------------------------------------------------
t0=$(date +%s)
$FLEET/idlelab-fleet "$T_TMP/inv.yml" "$C" >"$T_TMP/run1.out" 2>"$T_TMP/run1.err"
rc=$?
diag "fleet run ($mode) took $(( $(date +%s) - t0 )) s"
check "idlelab-fleet exits 0" [ "$rc" -eq 0 ]
if [ "$rc" -ne 0 ]; then
	sed 's/^/#   /' "$T_TMP/run1.err" | tail -15
	grep -E 'fatal|FAILED|UNREACHABLE' -A3 "$R/ansible.log" | head -20 | sed 's/^/#   /'
fi
n_db=0
for h in a b c; do [ -f "$R/host-$h.db" ] && n_db=$((n_db + 1)); done
check "three databases fetched" [ "$n_db" -eq 3 ]
uuids=$(for h in a b c; do q "$R/host-$h.db" "SELECT uuid FROM machines" 2>/dev/null; done | sort -u | wc -l)
check "three distinct host UUIDs" [ "$uuids" -eq 3 ]
check "each host UUID is the one in its state dir" sh -c '
	for h in a b c; do
		[ "$(sqlite3 "'"$R"'/host-$h.db" "SELECT uuid FROM machines")" = "$(cat "'"$T_TMP"'/state-$h/host-uuid")" ] || exit 1
		[ "$(cat "'"$T_TMP"'/state-$h/inventory-name")" = "host-$h" ] || exit 1
	done'
check "machines.hostname is the inventory name" sh -c '
	for h in a b c; do
		[ "$(sqlite3 "'"$R"'/host-$h.db" "SELECT hostname FROM machines")" = "host-$h" ] || exit 1
	done'
runs_each=$(for h in a b c; do q "$R/host-$h.db" "SELECT count(*) FROM runs WHERE status='ok'" 2>/dev/null || echo 0; done | tr '\n' ' ')
check "two ok runs per host ($runs_each)" [ "$runs_each" = "2 2 2 " ]
sum=$(for h in a b c; do q "$R/host-$h.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0; done | awk '{ s += $1 } END { print s + 0 }')
F=$R/fleet.db
check "fleet.db holds the sum of the runs ($sum)" [ "$(q "$F" "SELECT count(*) FROM runs" 2>/dev/null)" = "$sum" ]
check "fleet.db holds three machines" [ "$(q "$F" "SELECT count(*) FROM machines" 2>/dev/null)" = 3 ]
check "polling interval stored in every run (run_env fleet.poll_s)" [ \
	"$(q "$F" "SELECT count(*) FROM run_env WHERE phase='before' AND json_extract(json, '\$.fleet.poll_s') = '1' AND json_extract(json, '\$.fleet.engine') = 'ansible'")" = "$sum" ]
check "kmod outcome stored (fleet.kmods)" [ \
	"$(q "$F" "SELECT count(*) FROM run_env e JOIN runs r ON r.uuid = e.run_uuid JOIN machines m ON m.uuid = r.machine_uuid
		WHERE e.phase='before' AND m.hostname <> 'host-c' AND json_extract(e.json, '\$.fleet.kmods') = 'not requested'")" = 4 ]
if [ "$KMOD_SKIP" = 1 ]; then
	check "kmods without headers: skip and reason recorded" sh -c "
		grep -q '^skipped: no headers for kernel $(uname -r)' '$T_TMP/state-c/fleet/kmods' &&
		[ \"\$(sqlite3 -batch -noheader '$F' \"SELECT count(*) FROM run_env e JOIN runs r ON r.uuid = e.run_uuid JOIN machines m ON m.uuid = r.machine_uuid WHERE e.phase = 'before' AND m.hostname = 'host-c' AND json_extract(e.json, '\\$.fleet.kmods') LIKE 'skipped: no headers%'\")\" = 2 ]"
else
	skip "kmods without headers: skip recorded" "headers for $(uname -r) are installed here"
fi
check "report printed with every host" sh -c "grep -q host-a '$T_TMP/run1.out' && grep -q host-b '$T_TMP/run1.out' && grep -q host-c '$T_TMP/run1.out'"
before=$(q "$F" "SELECT count(*), group_concat(uuid) FROM (SELECT uuid FROM runs ORDER BY uuid)")
sha_before=$(q "$F" "SELECT count(*) FROM runs; SELECT count(*) FROM summaries; SELECT count(*) FROM histograms; SELECT count(*) FROM machines" | tr '\n' ' ')
"$IDLELAB" merge "$F" "$R"/host-*.db >/dev/null 2>&1
check "merging again changes nothing" sh -c "[ \"\$(sqlite3 -batch -noheader '$F' 'SELECT count(*) FROM runs; SELECT count(*) FROM summaries; SELECT count(*) FROM histograms; SELECT count(*) FROM machines' | tr '\n' ' ')\" = '$sha_before' ]"
if [ "$mode" = netns ]; then
	check "one SSH master per inventory host" sh -c "
		for h in a b c; do ls '$T_TMP/cp' | grep -q \"^host-\$h-\" || exit 1; done"
else
	skip "one SSH master per inventory host" "local fallback"
fi
check "throttle=1: campaigns ran one host at a time" sh -c "
	sqlite3 -batch -noheader '$F' \"SELECT min(start_ns), max(end_ns) FROM runs GROUP BY machine_uuid ORDER BY 1\" |
	awk -F'|' 'NR > 1 && \$1 < prev { exit 1 } { prev = \$2 }'"

# --- one host unreachable ---------------------------------------------------
$FLEET/idlelab-fleet "$T_TMP/inv-ghost.yml" "$C" >"$T_TMP/run2.out" 2>"$T_TMP/run2.err"
rc=$?
check "unreachable host: exit 4" [ "$rc" -eq 4 ]
[ "$rc" -eq 4 ] || sed 's/^/#   /' "$T_TMP/run2.err" | tail -10
check "unreachable host reported by name" grep -q '^idlelab-fleet: unreachable: host-ghost$' "$T_TMP/run2.err"
check "no other host reported" sh -c "! grep -qE 'unreachable: host-[abc]|failed: host-[abc]' '$T_TMP/run2.err'"
check "the others' databases fetched and merged" sh -c "
	for h in a b c; do [ -f '$R/host-'\$h.db ] || exit 1; done
	[ ! -e '$R/host-ghost.db' ]
	[ \"\$(sqlite3 -batch -noheader '$F' 'SELECT count(*) FROM machines')\" = 3 ]"
after=$(q "$F" "SELECT count(*), group_concat(uuid) FROM (SELECT uuid FROM runs ORDER BY uuid)")
check "rerun repeated no finished run" [ "$before" = "$after" ]
check "rerun said the campaign was already done" sh -c "
	for h in a b c; do grep -q 'already done' '$T_TMP/state-'\$h/fleet/last-run.log || exit 1; done"

# --- the unreachable host comes back: a rerun resumes it --------------------
if [ "$mode" = netns ] && ip netns add "$GHOST" 2>/dev/null; then
	made="$made $GHOST"
	ip -n "$GHOST" link set lo up
	$FLEET/idlelab-fleet "$T_TMP/inv-ghost.yml" "$C" >"$T_TMP/run3.out" 2>"$T_TMP/run3.err"
	rc=$?
	check "rerun with the host back: exit 0" [ "$rc" -eq 0 ]
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T_TMP/run3.err" | tail -10
	check "the returning host ran its campaign" [ "$(q "$R/host-ghost.db" "SELECT count(*) FROM runs WHERE status='ok'" 2>/dev/null)" = 2 ]
	check "fleet.db: four machines, the old runs untouched" sh -c "
		[ \"\$(sqlite3 -batch -noheader '$F' 'SELECT count(*) FROM machines')\" = 4 ] &&
		[ \"\$(sqlite3 -batch -noheader '$F' 'SELECT count(*) FROM runs')\" = $((sum + 2)) ] &&
		for h in a b c; do [ \"\$(sqlite3 -batch -noheader '$R/host-'\$h.db 'SELECT count(*) FROM runs')\" = 2 ] || exit 1; done"
else
	skip "rerun with the host back" "needs network namespaces"
fi
t_done

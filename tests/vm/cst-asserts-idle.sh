# SPDX-License-Identifier: GPL-2.0-only
# The _CST guest's idle-state map checks (issue 24), sourced by
# tests/vm/test_cst.sh with D, R, G, gq and K set; IDLELAB is the host's
# build, which reads the guest's database.  Which state the governor
# picks is the kernel's business: checked is only what must hold (more
# than one state entered, none the CPU lacks, every sample counted once,
# ambiguous ones apart), and that advise --verify puts every disable
# file back.  What the sweeps showed is recorded in BENCHMARKS.md.
# IDLELAB_CST_KEEP=DIR keeps a copy of each guest's results in DIR/K, for
# BENCHMARKS.md (the test's own directory is removed at its end).
if [ -n "${IDLELAB_CST_KEEP:-}" ]; then
	mkdir -p "$IDLELAB_CST_KEEP" && rm -rf "${IDLELAB_CST_KEEP:?}/$K" &&
		cp -r "$D" "$IDLELAB_CST_KEEP/$K"
fi
for w in timer ipi; do
	l=$(grep "\"op\":\"idlelab\",\"name\":\"cst_sweep_$w\"" "$R")
	check "cst $K: idle_sweep wake=$w ran" [ "$(va_jv "$l" rc)" = 0 ]
done
SW="FROM summaries s JOIN runs r ON r.uuid = s.run_uuid
	WHERE r.bench = 'idle_sweep' AND r.status = 'ok' AND r.campaign IS NULL"
check "cst $K: two sweeps stored, their states from the usage counters" \
	[ "$(gq "SELECT count(DISTINCT r.uuid) FROM runs r JOIN run_attrs a ON a.run_uuid = r.uuid
		WHERE r.bench = 'idle_sweep' AND r.campaign IS NULL AND r.status = 'ok'
		AND a.key = 'entered_state' AND a.value LIKE 'cpuidle usage counters%'")" -eq 2 ]
ent=$(gq "SELECT group_concat(st, ' ') FROM (SELECT DISTINCT substr(s.metric, 17) st $SW
	AND s.metric LIKE 'wake\_latency\_in\_%' ESCAPE '\\' AND s.count > 0 ORDER BY 1)")
check "cst $K: more than one idle state entered ($ent)" \
	[ "$(echo "$ent" | wc -w)" -ge 2 ]
check "cst $K: no sample names a state the CPU lacks ($ent)" sh -c "
	for s in $ent; do case \$s in POLL|C1|C2|C3) ;; *) exit 1 ;; esac; done"
# Each sample once: in one state, ambiguous or not idle, at every d.
odd=$(gq "SELECT count(*) FROM (SELECT s.run_uuid, s.grp,
		sum(CASE WHEN s.metric = 'wake_latency' THEN s.count END) n,
		sum(CASE WHEN s.metric LIKE 'wake\_latency\_in\_%' ESCAPE '\\'
			OR s.metric IN ('wake_latency_ambiguous', 'wake_latency_not_idle')
			THEN s.count END) k $SW GROUP BY 1, 2) WHERE n IS NOT k")
check "cst $K: every sample is counted once: a state, ambiguous or not idle ($odd d off)" \
	[ "$odd" = 0 ]
amb=$(gq "SELECT coalesce(sum(s.count), 0) $SW AND s.metric = 'wake_latency_ambiguous'
	AND json_extract(r.params, '\$.wake') = 'ipi'")

# The declared table, by the host's build: each state of the SSDT, its
# declared latency, the samples of the map, a p50 with its bounds where
# enough samples entered it, and the guest's kernel on every row.
rel=$(gq "SELECT DISTINCT json_extract(value, '\$.kernel.release') FROM run_attrs WHERE key = 'declared_idle'")
"$IDLELAB" report --db "$G" --kind declared --format json >"$D/declared.json" 2>"$D/declared.err"
check "cst $K: report --kind declared reads the guest's database" [ $? -eq 0 ]
dq() { jq -r "[.[0].rows[] | $1] | join(\" \")" "$D/declared.json"; }
check "cst $K: declared: per wake source, POLL C1 C2 C3 declaring 0 1 20 80 us" \
	[ "$(dq 'select(.Wake == "ipi") | "\(.State)=\(.["Declared latency (us)"])"')" = \
	  "POLL=0 C1=1 C2=20 C3=80" ]
check "cst $K: declared: every row is the guest's kernel ($rel)" \
	[ "$(dq '.Kernel' | tr ' ' '\n' | sort -u)" = "$rel" ]
# (IPI: the verify runs below add timer runs the table reads too.)
check "cst $K: declared: the samples per state are the map's" \
	[ "$(dq 'select(.Wake == "ipi") | .Samples' | tr ' ' '\n' | awk '{ s += $1 } END { print s + 0 }')" = \
	  "$(gq "SELECT coalesce(sum(s.count), 0) $SW AND s.metric LIKE 'wake\_latency\_in\_%' ESCAPE '\\'
		AND json_extract(r.params, '\$.wake') = 'ipi'")" ]
check "cst $K: declared: a p50 with lo <= est <= hi wherever bounded, none for 0 samples" \
	jq -e '[.[0].rows[] | .Samples as $n | .["p50 (us) [95 % CI]"] |
		if $n == 0 then . == null elif .lo == null then true
		else .lo <= .est and .est <= .hi end] | all' "$D/declared.json"

# advise on the IPI map: an answer whatever it is, never an empty table,
# with the ambiguous samples counted.
l=$(grep '"op":"cst_advise","name":"cst_advise_ipi"' "$R")
check "cst $K: advise --wake ipi exits 0" [ "$(va_jv "$l" rc)" = 0 ]
a=$D/cst_advise_ipi.json
check "cst $K: advise ipi: the four states, an answer and a message" \
	jq -e '.[0] | ([.states[].name] == ["POLL", "C1", "C2", "C3"]) and
		(.answer | IN("cap", "only_poll", "all_states", "too_few_samples", "no_state_meets"))
		and (.message | length > 0)' "$a"
check "cst $K: advise ipi: the ambiguous samples are counted ($amb)" \
	[ "$(jq '.[0].ambiguous_samples' "$a")" = "$amb" ]

# advise --verify on the timer map: the advice applied, confirmed and
# every disable file put back; then with too few samples, exit 5.
# cst_restored NAME: the disable files and the journal around NAME.
cst_restored() {
	b=$(grep "\"op\":\"cpuidle_disable\",\"when\":\"before_$1\"" "$R")
	f=$(grep "\"op\":\"cpuidle_disable\",\"when\":\"after_$1\"" "$R")
	check "cst $K: $1: 16 disable files read before" \
		[ "$(va_jv "$b" values | wc -w)" -eq 16 ]
	check "cst $K: $1: every disable file as before" \
		[ -n "$(va_jv "$b" values)" -a "$(va_jv "$b" values)" = "$(va_jv "$f" values)" ]
	check "cst $K: $1: no journal before or after" \
		[ "$(va_jv "$b" journal)$(va_jv "$f" journal)" = 00 ]
}
v=$D/cst_verify.json
l=$(grep '"op":"cst_advise","name":"cst_verify"' "$R")
check "cst $K: advise --verify exits 0 ($(jq -r '.[0].verify.message' "$v" 2>/dev/null))" \
	[ "$(va_jv "$l" rc)" = 0 ]
check "cst $K: verify: the answer is a cap, one ok run per arm, met" \
	jq -e '.[0] | (.answer | IN("cap", "only_poll")) and .verify.verdict == "met"
		and .verify.advised.runs == 1 and .verify.current.runs == 1' "$v"
# CPU 1 under the advice: a state disabled exactly when deeper than the
# deepest allowed one.
want=$(jq -r '.[0] | .deepest as $d | [.states[] | .name] | index($d) as $i |
	[range(0; length) | if . <= $i then "0" else "1" end] | join(",")' "$v")
check "cst $K: verify: CPU 1 had exactly the advised states disabled ($want) while it ran" \
	grep -qx "$want" "$D/cst_verify.watch"
check "cst $K: verify: and all enabled again at its end" \
	[ "$(tail -n 1 "$D/cst_verify.watch")" = 0,0,0,0 ]
cst_restored cst_verify
v=$D/cst_verify_few.json
l=$(grep '"op":"cst_advise","name":"cst_verify_few"' "$R")
check "cst $K: advise --verify with one sample an arm exits 5" [ "$(va_jv "$l" rc)" = 5 ]
check "cst $K: verify_few: too few samples to show the budget met" \
	jq -e '.[0].verify.verdict == "too_few_samples" and .[0].verify.advised.samples == 1' "$v"
cst_restored cst_verify_few

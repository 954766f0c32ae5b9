#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue 25, items 1 and 2: `idlelab publish DIR`.
#   - the bundle: idlelab.db, one CSV per table, datapackage.json and
#     metadata.json (validated against schemas/json/, units checked), the
#     README's five worked queries run on it, datapackage.json (its
#     shape checked with jq: resources, schemas, keys, hashes), README.md;
#   - it merges back: `idlelab merge` of the bundle gives the source's
#     report row for row (by name without redaction; with it, the same
#     rows under pseudonyms);
#   - redaction, on by default: every hostname, original machine UUID,
#     serial, DMI UUID, asset tag, hardware address and dropped
#     command-line option of a fixture fingerprint and hwloc XML
#     (tests/fixtures/publish/), and a campaign file's directory, is
#     absent from every file of the bundle, the SQLite file included;
#     --no-redact keeps them; one key gives one set of pseudonyms,
#     another key another; machines sharing a hostname get distinct ones;
#   - reference machines (published figures) stay as published;
#   - refusals (exit 2, nothing written): a non-empty DIR, the input's own
#     directory, a file, a selection of no run; the input never changes.
. tests/lib.sh

I=$IDLELAB
F=tests/fixtures/publish
q() { sqlite3 -batch -noheader "$1" "$2"; }

# Two machines, each with a real run, then given the fixture's private
# details: its fingerprint patched (RFC 7396) and its hwloc XML replaced.
for h in a b; do
	t_new_host "$T_TMP/state-$h"
	IDLELAB_STATE_DIR=$T_TMP/state-$h IDLELAB_HOSTNAME=lab-$h-secrethost "$I" bench \
		tsc_gaps --cpus 0 --param duration_ms=20 --db "$T_TMP/$h.db" >/dev/null 2>&1
	# Machine a also runs a campaign, from a directory whose name is
	# private: the bundle keeps the file's name and hash, not its path.
	if [ $h = a ]; then
		mkdir -p "$T_TMP/campdir-secret"
		printf 'name: pub\ngroups:\n  - name: g\n    bench: tsc_gaps\n    cpus: "0"\n    params: {duration_ms: 20}\n' \
			>"$T_TMP/campdir-secret/c.yaml"
		IDLELAB_STATE_DIR=$T_TMP/state-$h IDLELAB_HOSTNAME=lab-$h-secrethost "$I" run \
			"$T_TMP/campdir-secret/c.yaml" --db "$T_TMP/$h.db" >/dev/null 2>&1
	fi
	q "$T_TMP/$h.db" "UPDATE machines SET fingerprint = json_patch(fingerprint,
		CAST(readfile('$F/fingerprint-patch.json') AS TEXT)), hwloc_xml = CAST(readfile('$F/hwloc.xml') AS TEXT)"
done
mkdir "$T_TMP/src"
"$I" merge "$T_TMP/src/fleet.db" "$T_TMP/a.db" "$T_TMP/b.db" >/dev/null 2>&1
SRC=$T_TMP/src/fleet.db
check "the source holds two machines, three runs and a campaign" \
	[ "$(q "$SRC" "SELECT count(DISTINCT machine_uuid) || ' ' || count(*) || ' ' || (SELECT count(*) FROM campaigns) FROM runs")" = "2 3 1" ]
check "the source carries the fixture's serials" grep -qa FP-PSERIAL-7731 "$SRC"
sum_before=$(sha256sum "$SRC" | cut -d' ' -f1)

export IDLELAB_STATE_DIR=$T_TMP/state-pub
B=$T_TMP/bundle
"$I" publish "$B" --db "$SRC" >"$T_TMP/out" 2>"$T_TMP/err"
check "publish exits 0" [ $? -eq 0 ]
for f in idlelab.db runs.csv machines.csv summaries.csv histograms.csv \
	datapackage.json README.md redactions.json; do
	check "the bundle has $f" test -s "$B/$f"
done
check "no working or temporary file is left" \
	sh -c "! ls -A '$B' | grep -q '^\\.'"
check "the input is unchanged" [ "$(sha256sum "$SRC" | cut -d' ' -f1)" = "$sum_before" ]
check "the key was made in the state directory, mode 0600" \
	[ "$(stat -c %a "$IDLELAB_STATE_DIR/publish-key")" = 600 ]
check "the bundle's database is in rollback mode (readable from read-only media)" \
	[ "$(q "$B/idlelab.db" "PRAGMA journal_mode")" = delete ]
check "the bundle's database passes db check" "$I" db check --db "$B/idlelab.db"

# One CSV per table, each with the table's columns and rows.
tables=$(q "$B/idlelab.db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
bad=""
for t in $tables; do
	cols=$(q "$B/idlelab.db" "SELECT group_concat(name, ',') FROM pragma_table_info('$t')")
	[ "$(head -1 "$B/$t.csv")" = "$cols" ] || bad="$bad $t(header)"
	# Rows as a CSV reader sees them (hwloc's XML spans lines).
	[ "$(sqlite3 -batch :memory: ".import --csv '$B/$t.csv' t" "SELECT count(*) FROM t")" = \
	  "$(q "$B/idlelab.db" "SELECT count(*) FROM \"$t\"")" ] || bad="$bad $t(rows)"
done
check "every table has its CSV, with its columns and rows${bad:+:$bad}" [ -z "$bad" ]

# datapackage.json: its shape, per the Data Package and Table Schema specs.
P=$B/datapackage.json
check "datapackage.json: a data-package with a name and resources" \
	jq -e '.profile == "data-package" and (.name | test("^[a-z0-9._-]+$")) and (.resources | length > 0)' "$P"
check "datapackage.json: every resource has a unique name and a path" \
	jq -e '[.resources[] | .name] as $n | ($n | unique | length) == ($n | length) and all(.resources[]; (.name | test("^[a-z0-9._-]+$")) and (.path | type == "string"))' "$P"
check "datapackage.json: one tabular resource per table" \
	[ "$(jq -r '[.resources[] | select(.profile == "tabular-data-resource") | .name] | sort | join(" ")' "$P")" = "$(echo $tables)" ]
check "datapackage.json: every field has a name and a Table Schema type" \
	jq -e 'all(.resources[] | select(.schema) | .schema.fields[]; (.name | type == "string") and (.type | IN("string", "integer", "number", "object", "array")))' "$P"
check "datapackage.json: runs' key is uuid, its machine a foreign key to machines" \
	jq -e '.resources[] | select(.name == "runs") | .schema.primaryKey == ["uuid"] and (.schema.foreignKeys | any(.fields == ["machine_uuid"] and .reference.resource == "machines" and .reference.fields == ["uuid"]))' "$P"
check "datapackage.json: every foreign key names a resource of the package" \
	jq -e '[.resources[].name] as $n | all(.resources[] | .schema.foreignKeys // [] | .[]; .reference.resource as $r | $n | index($r))' "$P"
check "datapackage.json: descriptions come from the schema's comments" \
	jq -e '.resources[] | select(.name == "machines") | .schema.fields[] | select(.name == "first_seen") | .description == "ns since the epoch"' "$P"
check "datapackage.json: the SQLite file is a resource" \
	jq -e 'any(.resources[]; .path == "idlelab.db" and .format == "sqlite")' "$P"
bad=""
for p in $(jq -r '.resources[].path' "$P"); do
	[ "$(jq -r --arg p "$p" '.resources[] | select(.path == $p) | .hash' "$P")" = \
	  "sha256:$(sha256sum "$B/$p" | cut -d' ' -f1)" ] || bad="$bad $p"
done
check "datapackage.json: every hash is its file's SHA-256${bad:+:$bad}" [ -z "$bad" ]

# Units: a fixed unit is in the field, as a property of the package's own.
check "datapackage.json: a *_ns field has unit ns, a per-row value none" \
	jq -e '(.resources[] | select(.name == "runs") | .schema.fields[] | select(.name == "start_ns") | .unit == "ns") and (.resources[] | select(.name == "summaries") | .schema.fields[] | select(.name == "p50") | has("unit") | not)' "$P"
check "datapackage.json: tsc_khz in kHz, first_seen in ns" \
	jq -e '(.resources[] | select(.name == "runs") | .schema.fields[] | select(.name == "tsc_khz") | .unit == "kHz") and (.resources[] | select(.name == "machines") | .schema.fields[] | select(.name == "first_seen") | .unit == "ns")' "$P"

# metadata.json for Datasette: the same tables, descriptions and units.
M=$B/metadata.json
check "metadata.json: every table of the database, under the database idlelab" \
	[ "$(jq -r '.databases.idlelab.tables | keys | join(" ")' "$M")" = "$(echo $tables)" ]
check "metadata.json: column descriptions and units agree with datapackage.json" \
	jq -e --slurpfile p "$P" '.databases.idlelab.tables.machines.columns.first_seen == "ns since the epoch" and .databases.idlelab.tables.runs.units.start_ns == "ns" and ([$p[0].resources[] | select(.schema) | .name as $t | .schema.fields[] | select(.unit) | [$t, .name, .unit]] == [.databases.idlelab.tables | to_entries[] | .key as $t | .value.units | to_entries[] | [$t, .key, .value]])' "$M"

# Both files against JSON Schemas written from the specs; each schema
# must also refuse a broken copy, or it checks nothing.
V="python3 tests/helpers/json-validate.py"
check "datapackage.json is valid against schemas/json/datapackage.schema.json" \
	$V schemas/json/datapackage.schema.json "$P"
check "metadata.json is valid against schemas/json/datasette-metadata.schema.json" \
	$V schemas/json/datasette-metadata.schema.json "$M"
jq '.resources[0].path = "../etc/passwd" | del(.resources[1].schema)' "$P" >"$T_TMP/bad-pkg.json"
expect_exit "a resource path with .. and a tabular resource without schema are refused" 1 \
	$V schemas/json/datapackage.schema.json "$T_TMP/bad-pkg.json"
check "the refusal names both" sh -c "grep -q 'resources/0/path' '$T_TMP/err' && grep -q \"'schema' is a required property\" '$T_TMP/err'"
jq '.databases.idlelab.tables.runs.unit = .databases.idlelab.tables.runs.units' "$M" >"$T_TMP/bad-meta.json"
expect_exit "a misspelt Datasette key (unit for units) is refused" 1 \
	$V schemas/json/datasette-metadata.schema.json "$T_TMP/bad-meta.json"

# The README's five worked queries, as printed there, on the bundle.
awk '/^```sql$/ { on = 1; n++; next } /^```$/ { on = 0 } on { print > (dir "/q" n ".sql") }' \
	dir="$T_TMP" README.md
rq() { sqlite3 -batch -csv -noheader "$B/idlelab.db" <"$T_TMP/q$1.sql"; }
check "the README has five worked queries, q1 to q5" sh -c \
	"for i in 1 2 3 4 5; do head -1 '$T_TMP'/q\$i.sql | grep -q \"^-- q\$i: \" || exit 1; done"
bq() { q "$B/idlelab.db" "$1"; }
check "q1: one row per machine and bench, every run counted, all ok" \
	[ "$(rq 1 | awk -F, '{ n++; r += $3; ok += $4 } END { print n, r, ok }')" = \
	  "$(bq "SELECT count(DISTINCT machine_uuid || bench) || ' ' || count(*) || ' ' || sum(status = 'ok') FROM runs")" ]
check "q2: the gap series of both machines, with samples" \
	[ "$(rq 2 | awk -F, '$3 == "gap" && $6 > 0 { print $1 }' | sort -u | wc -l)" -eq 2 ]
check "q3: the two machines side by side, the ratio their medians'" \
	[ "$(rq 3 | awk -F, '$2 == "gap" { r = $5 ? $7 / $5 : 0; d = r - $8; print (d < 0.001 && d > -0.001 && $4 < $6) ? "ok" : "bad" }' | sort -u)" = ok ]
check "q4: every row it gives has a status and a reason" \
	sh -c "rq() { sqlite3 -batch -csv -noheader '$B/idlelab.db' <'$T_TMP/q4.sql'; }; rq >/dev/null && ! rq | awk -F, '\$4 == \"\" || \$5 == \"\"' | grep -q ."
check "q5: both machines, on this kernel, with their run counts" \
	[ "$(rq 5 | awk -F, -v k="$(uname -r)" '$3 == k { n++; r += $NF } END { print n, r }')" = "2 3" ]

# Merge back: the report of the bundle, merged into a new file, is the
# source's, row for row, under pseudonyms (the Machine column aside).
"$I" merge "$T_TMP/back.db" "$B/idlelab.db" >/dev/null 2>&1
"$I" report --db "$SRC" --format csv | cut -d, -f2- | sort >"$T_TMP/rep-src"
"$I" report --db "$T_TMP/back.db" --format csv | cut -d, -f2- | sort >"$T_TMP/rep-back"
check "merged back: the same report rows, numbers and all" cmp "$T_TMP/rep-src" "$T_TMP/rep-back"
check "merged back: as many rows as the source's report" [ "$(wc -l <"$T_TMP/rep-src")" -gt 2 ]
check "merged back: each machine under its pseudonym" \
	sh -c "'$I' report --db '$T_TMP/back.db' | grep -q '^| host-[0-9a-f]\{12\} | tsc_gaps'"

# Redaction: nothing private in any file, the SQLite file included.
leaks() {
	for f in "$1"/*; do
		grep -v '^#' "$F/private.txt" | while read -r s; do
			grep -qaF -- "$s" "$f" && printf ' %s in %s' "$s" "${f##*/}"
		done
		for s in lab-a-secrethost lab-b-secrethost "${T_TMP##*/}" campdir-secret \
			"$(cat "$T_TMP/state-a/host-uuid")" "$(cat "$T_TMP/state-b/host-uuid")"; do
			grep -qaiF -- "$s" "$f" && printf ' %s in %s' "$s" "${f##*/}"
		done
	done
}
found=$(leaks "$B")
check "redacted: no hostname, machine UUID, serial, DMI UUID, asset tag, address or dropped option in any file${found:+:$found}" \
	[ -z "$found" ]
check "redacted: the measurement options stay on the command line" \
	sh -c "q() { sqlite3 -batch -noheader \"\$@\"; }; [ \"\$(q '$B/idlelab.db' \"SELECT DISTINCT json_extract(fingerprint, '\$.kernel.cmdline') FROM machines\")\" = 'intel_idle.max_cstate=2 idle=poll processor.max_cstate=1 nohz_full=1-3 isolcpus=1-3 mitigations=off x2apic_phys nmi_watchdog=0 preempt=full cpuidle.off=1' ]"
check "redacted: hwloc XML keeps the product name, loses the DMI UUID" \
	sh -c "grep -qa 'Fixture Box 9000' '$B/idlelab.db' && ! grep -qa DMIProductUUID '$B/idlelab.db'"
check "redacted: machine UUIDs are pseudonyms in UUID form (version 8)" \
	[ "$(q "$B/idlelab.db" "SELECT count(*) FROM machines WHERE uuid GLOB '????????-????-8???-[89ab]???-????????????'")" = 2 ]
check "redacted: run UUIDs are kept" \
	[ "$(q "$B/idlelab.db" "SELECT group_concat(uuid) FROM (SELECT uuid FROM runs ORDER BY uuid)")" = \
	  "$(q "$SRC" "SELECT group_concat(uuid) FROM (SELECT uuid FROM runs ORDER BY uuid)")" ]
check "redacted: the campaign keeps its file's name and hash, under the machine's pseudonym" \
	[ "$(q "$B/idlelab.db" "SELECT c.file || ' ' || (c.file_sha256 = '$(sha256sum "$T_TMP/campdir-secret/c.yaml" | cut -d' ' -f1)') || ' ' || count(r.uuid) FROM campaigns c JOIN runs r ON r.machine_uuid = c.machine_uuid AND r.campaign = c.name")" = "c.yaml 1 1" ]
check "README.md lists the campaign file with its SHA-256" \
	grep -q "^| pub | c.yaml | $(sha256sum "$T_TMP/campdir-secret/c.yaml" | cut -d' ' -f1) | " "$B/README.md"
check "redactions.json lists what was removed" \
	jq -e '.redacted and (.machines | length == 2) and all(.machines[]; .removed | index("kernel command line: root") and index("hwloc XML: info DMIProductSerial") and index("fingerprint: dmi.product_uuid"))' "$B/redactions.json"
check "README.md names the machines by pseudonym and says what was removed" \
	sh -c "grep -q '^| host-[0-9a-f]\{12\} | ' '$B/README.md' && grep -q '^## Redaction' '$B/README.md' && grep -q 'DMIChassisAssetTag' '$B/README.md'"

# One key, one set of pseudonyms: a second bundle matches the first.
"$I" publish "$T_TMP/bundle2" --db "$SRC" >/dev/null 2>&1
check "same key: the same machine pseudonyms in a second bundle" cmp "$B/machines.csv" "$T_TMP/bundle2/machines.csv"
head -c 32 /dev/urandom >"$T_TMP/other.key"
"$I" publish "$T_TMP/bundle3" --db "$SRC" --key "$T_TMP/other.key" >/dev/null 2>&1
check "another key (--key FILE): two machines under pseudonyms" \
	[ "$(q "$T_TMP/bundle3/idlelab.db" "SELECT count(*) FROM machines WHERE hostname LIKE 'host-%'")" = 2 ]
check "another key: none of the first key's pseudonyms" \
	sh -c "! sqlite3 '$B/idlelab.db' 'SELECT uuid FROM machines UNION ALL SELECT hostname FROM machines' | grep -qF -f - '$T_TMP/bundle3/idlelab.db'"
found=$(leaks "$T_TMP/bundle3")
check "another key: still nothing private${found:+:$found}" [ -z "$found" ]

# --no-redact: as measured, and the report is the source's, names and all.
"$I" publish "$T_TMP/plain" --db "$SRC" --no-redact >"$T_TMP/out" 2>&1
check "--no-redact says so" grep -q "NOT redacted" "$T_TMP/out"
check "--no-redact: hostnames, serials, machine UUIDs and the command line kept" \
	sh -c "grep -qa lab-a-secrethost '$T_TMP/plain/idlelab.db' && grep -qa HWLOC-ASSET-8855 '$T_TMP/plain/machines.csv' && grep -qa 'root=UUID' '$T_TMP/plain/idlelab.db' && grep -qa \"\$(cat '$T_TMP/state-a/host-uuid')\" '$T_TMP/plain/runs.csv'"
# The leak check is shown to work: in the unredacted bundle's database it
# finds every private string, the fixture's and the hosts'.
found=$(leaks "$T_TMP/plain")
check "the leak check finds every private string in a --no-redact bundle" \
	[ "$(echo "$found" | grep -o ' in idlelab.db' | wc -l)" -eq "$(($(grep -vc '^#' "$F/private.txt") + 6))" ]
check "--no-redact: no redactions.json" test ! -e "$T_TMP/plain/redactions.json"
"$I" merge "$T_TMP/back-plain.db" "$T_TMP/plain/idlelab.db" >/dev/null 2>&1
check "--no-redact merged back: the source's report, byte for byte" \
	sh -c "'$I' report --db '$SRC' >'$T_TMP/r1' && '$I' report --db '$T_TMP/back-plain.db' >'$T_TMP/r2' && cmp '$T_TMP/r1' '$T_TMP/r2'"

# A selection: --where host=... keeps one machine and its run only.
"$I" publish "$T_TMP/one" --db "$SRC" --where host=lab-b-secrethost >/dev/null 2>&1
check "--where host=: one machine, its one run" \
	[ "$(q "$T_TMP/one/idlelab.db" "SELECT (SELECT count(*) FROM machines) || ' ' || count(*) FROM runs")" = "1 1" ]
"$I" publish "$T_TMP/campaign" --db "$SRC" --where campaign=pub >/dev/null 2>&1
check "--where campaign=: its run, its machine and its campaign row" \
	[ "$(q "$T_TMP/campaign/idlelab.db" "SELECT (SELECT count(*) FROM machines) || ' ' || count(*) || ' ' || (SELECT count(*) FROM campaigns) FROM runs")" = "1 1 1" ]
one=$(q "$T_TMP/one/idlelab.db" "SELECT uuid || ',' || hostname FROM machines")
check "--where host=: the same pseudonyms as in the whole bundle" \
	sh -c "[ -n '$one' ] && grep -q '^$one,' '$B/machines.csv'"

# Reference machines (published figures) are public and keep their names
# and fixed UUIDs, so the bundle and a fresh `import reference` meet on
# the same rows when merged.
"$I" import reference data/reference/seeds.json --db "$T_TMP/ref.db" >/dev/null 2>&1
"$I" merge "$T_TMP/withref.db" "$T_TMP/ref.db" "$T_TMP/a.db" >/dev/null 2>&1
"$I" publish "$T_TMP/refb" --db "$T_TMP/withref.db" >/dev/null 2>&1
check "reference machines are kept as published, the measured one redacted" \
	[ "$(q "$T_TMP/refb/idlelab.db" "SELECT group_concat(n) FROM (SELECT count(*) AS n FROM machines WHERE uuid IN (SELECT uuid FROM machines WHERE is_reference = 1) AND hostname NOT LIKE 'host-%' UNION ALL SELECT count(*) FROM machines WHERE is_reference = 0 AND hostname LIKE 'host-%')")" = \
	  "$(q "$T_TMP/ref.db" "SELECT count(*) FROM machines"),1" ]
"$I" merge "$T_TMP/refback.db" "$T_TMP/ref.db" "$T_TMP/refb/idlelab.db" >/dev/null 2>&1
check "merged with a fresh import reference: no reference machine twice" \
	[ "$(q "$T_TMP/refback.db" "SELECT count(*) FROM machines")" = "$(q "$T_TMP/withref.db" "SELECT count(*) FROM machines")" ]
check "redactions.json counts the reference machines kept" \
	jq -e '.reference_machines_kept > 0 and (.machines | length == 1)' "$T_TMP/refb/redactions.json"

# Two machines with one hostname (the guests of the rigs all say "(none)")
# are two pseudonyms: the name is derived from the machine, not the host.
cp "$SRC" "$T_TMP/samename.db"
q "$T_TMP/samename.db" "UPDATE machines SET hostname = '(none)'"
"$I" publish "$T_TMP/samename" --db "$T_TMP/samename.db" >/dev/null 2>&1
check "machines sharing a hostname get distinct pseudonyms" \
	[ "$(q "$T_TMP/samename/idlelab.db" "SELECT count(DISTINCT hostname) || ' ' || sum(hostname LIKE 'host-%') FROM machines")" = "2 2" ]
check "... each machine's pseudonym is the one it has under its real name" \
	sh -c "[ \"\$(sqlite3 -batch -noheader '$T_TMP/samename/idlelab.db' 'SELECT uuid, hostname FROM machines ORDER BY uuid')\" = \"\$(sqlite3 -batch -noheader '$B/idlelab.db' 'SELECT uuid, hostname FROM machines ORDER BY uuid')\" ]"

# Refusals: exit 2 with a message, nothing written.
expect_exit "a non-empty DIR is refused" 2 "$I" publish "$B" --db "$SRC"
ls -A "$T_TMP/src" >"$T_TMP/src.ls"
expect_exit "the input's own directory is refused" 2 "$I" publish "$T_TMP/src" --db "$SRC"
check "... and it is left as it was" [ "$(ls -A "$T_TMP/src")" = "$(cat "$T_TMP/src.ls")" ]
: >"$T_TMP/afile"
expect_exit "a DIR that is a file is refused" 2 "$I" publish "$T_TMP/afile" --db "$SRC"
expect_exit "a selection of no run is refused" 2 "$I" publish "$T_TMP/none" --db "$SRC" --bench cstate_wake
check "... and leaves no DIR behind" test ! -e "$T_TMP/none"
expect_exit "a missing database is refused" 2 "$I" publish "$T_TMP/nodb" --db "$T_TMP/missing.db"
expect_exit "no DIR is a usage error" 2 "$I" publish --db "$SRC"
expect_exit "a bad --where is a usage error" 2 "$I" publish "$T_TMP/w" --db "$SRC" --where nokey=1
printf 'short' >"$T_TMP/short.key"
expect_exit "a --key file too short to be secret is refused" 2 "$I" publish "$T_TMP/k" --db "$SRC" --key "$T_TMP/short.key"
chmod 644 "$IDLELAB_STATE_DIR/publish-key"
expect_exit "a default key others can read is refused" 2 "$I" publish "$T_TMP/k" --db "$SRC"
check "the input is still unchanged" [ "$(sha256sum "$SRC" | cut -d' ' -f1)" = "$sum_before" ]
t_done

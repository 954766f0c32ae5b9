#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Adding a benchmark is one file in bench/ plus one line in
# bench/registry.c, and nothing else: a copy of this tree (every file git
# tracks or would track) gets bench/template_demo.c from the template
# tests/fixtures/bench-template.c and one X(template_demo) line in the
# registry, builds (non-sanitized, -j2), and the new benchmark is listed by
# `idlelab list --json`, runs into a fresh database, and its .check and
# .estimate_ns ops reach `idlelab run --dry-run`.  Every other file
# of the copy is then compared with the tree: none may have changed.
. tests/lib.sh

NAME=template_demo
SRC=$PWD
COPY=$T_TMP/tree
mkdir -p "$COPY"
git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$COPY" 2>"$T_TMP/cp.err"
check "tree copied" test -f "$COPY/Makefile" -a -f "$COPY/bench/registry.c"

sed "s/@NAME@/$NAME/g" tests/fixtures/bench-template.c >"$COPY/bench/$NAME.c"
# The one line: after the last X(...) line of the list.
awk -v n="$NAME" '
	{ lines[NR] = $0; if ($0 ~ /^\tX\([a-z0-9_]+\)[ \t]*\\$/) last = NR }
	END { for (i = 1; i <= NR; i++) { print lines[i]; if (i == last) printf "\tX(%s)\t\\\n", n } }
' bench/registry.c >"$COPY/bench/registry.c"
diff bench/registry.c "$COPY/bench/registry.c" >"$T_TMP/reg.diff"
check "registry: exactly one line added" \
	sh -c "[ \$(grep -c '^>' '$T_TMP/reg.diff') -eq 1 ] && ! grep -q '^<' '$T_TMP/reg.diff'"

cd "$COPY" || exit 1
if make -s -j2 BUILD=build SAN=0 >"$T_TMP/make.log" 2>&1; then
	ok "the copy builds with the new benchmark"
else
	not_ok "the copy builds with the new benchmark"
	tail -20 "$T_TMP/make.log" | sed 's/^/#   /'
fi
NEW=$COPY/build/idlelab
check "listed by idlelab list --json" \
	sh -c "'$NEW' list --json | jq -e '.[] | select(.name == \"$NAME\") | .params[0].name == \"samples\"'"
DB=$T_TMP/fresh.db
check "idlelab bench $NAME runs" "$NEW" bench "$NAME" --db "$DB" --param samples=50
check "one ok run of $NAME stored" test "$(sqlite3 -batch -noheader "$DB" \
	"SELECT count(*) FROM runs WHERE bench = '$NAME' AND status = 'ok'")" = 1
check "its 50 samples are summarised" test "$(sqlite3 -batch -noheader "$DB" \
	"SELECT s.count FROM runs r JOIN summaries s ON s.run_uuid = r.uuid WHERE r.bench = '$NAME' AND s.metric = 'read_gap'")" = 50
# Its .check and .estimate_ns ops reach the plan: a campaign of it is
# estimated from samples (1 us a pair plus the harness's 50 ms per run,
# where a benchmark without the op gets 1 s), and a placement of two CPUs
# is refused at --dry-run, before anything runs.
printf 'name: tmpl\ngroups:\n  - {bench: %s, params: {samples: 100}}\n  - {bench: %s, params: {samples: 250000}}\n' \
	"$NAME" "$NAME" >"$T_TMP/tmpl.yaml"
"$NEW" run "$T_TMP/tmpl.yaml" --db "$T_TMP/dry.db" --dry-run >"$T_TMP/dry.out" 2>&1
check "dry-run: the estimate follows samples" \
	sh -c "grep -q ' 0\.1 s  samples=100\$' '$T_TMP/dry.out' && grep -q ' 0\.3 s  samples=250000\$' '$T_TMP/dry.out'"
printf 'name: tmpl2\ngroups:\n  - {bench: %s, cpus: "0,1"}\n' "$NAME" >"$T_TMP/tmpl2.yaml"
expect_exit "dry-run: .check refuses two CPUs" 2 \
	"$NEW" run "$T_TMP/tmpl2.yaml" --db "$T_TMP/dry.db" --dry-run
check "the refusal is the check's message" grep -q "placement: 2 CPUs, but this benchmark times one" "$T_TMP/err"
check "a dry run creates no database" test ! -e "$T_TMP/dry.db"
cd "$SRC" || exit 1

# Nothing else edited: every file of the tree is byte-identical in the copy.
changed=$(git ls-files --cached --others --exclude-standard |
	while IFS= read -r f; do
		[ "$f" = bench/registry.c ] && continue
		cmp -s "$f" "$COPY/$f" || echo "$f"
	done)
check "no other file changed${changed:+: $changed}" test -z "$changed"
git ls-files --cached --others --exclude-standard | sort >"$T_TMP/tree.files"
(cd "$COPY" && find . -path ./build -prune -o -type f -print | sed 's|^\./||' | sort) >"$T_TMP/copy.files"
check "the only new file is bench/$NAME.c" \
	test "$(comm -13 "$T_TMP/tree.files" "$T_TMP/copy.files")" = "bench/$NAME.c"
t_done

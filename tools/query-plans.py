#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Explain the query plan of every statement idlelab ran.

usage: query-plans.py DB TRACE [--big N]

TRACE is what IDLELAB_SQL_TRACE=FILE wrote (one JSON string a line,
harness/store_sql.c).  Each distinct SELECT (or WITH) is run under
EXPLAIN QUERY PLAN against DB, with every parameter NULL (the plan does
not depend on the values).  A statement is "suspect" when it scans a
table of more than N rows (default 1000) as the inner loop of a join
or inside a correlated subquery: a scan per outer row, the quadratic
read that grows a report from seconds to hours with the fleet.  Prints each statement with its plan, suspects first, and exits 1
when any is suspect.  tools/query-plans.sh drives it over every report.
"""
import json
import re
import sqlite3
import sys


def plan_rows(db, sql):
    """The EXPLAIN QUERY PLAN rows (id, parent, detail), params NULL."""
    n = 0
    while True:
        try:
            return db.execute("EXPLAIN QUERY PLAN " + sql, [None] * n).fetchall()
        except sqlite3.ProgrammingError as e:
            m = re.search(r"uses (\d+)", str(e))
            if not m or n:
                raise
            n = int(m.group(1))


def suspects(rows, sizes, big):
    """The SCAN details of big tables that run more than once: an inner
    loop of a join (a loop before it under the same parent), or a scan
    anywhere inside a correlated subquery (run per outer row).  A scan
    that is the first loop of its query or of a plain subquery runs once,
    which a report that reads everything must do anyway."""
    out = []
    node = {}
    loops_under = {}
    for rid, parent, _unused, detail in rows:
        node[rid] = (parent, detail)
        m = re.match(r"(SCAN|SEARCH) (\w+)", detail)
        if not m:
            continue
        inner = loops_under.get(parent, 0) > 0
        loops_under[parent] = loops_under.get(parent, 0) + 1
        if m.group(1) != "SCAN":
            continue
        name = m.group(2)
        # SQLite 3.40 names the alias ("SCAN r"): map aliases too.
        n = sizes.get(name, sizes.get("?" + name, 0))
        if n <= big:
            continue
        correlated = False
        p = parent
        while p in node:
            if node[p][1].startswith("CORRELATED"):
                correlated = True
            p = node[p][0]
        if inner or correlated:
            out.append(detail + (" (correlated)" if correlated else
                                 " (inner loop)"))
    return out


def main():
    args = sys.argv[1:]
    big = 1000
    if "--big" in args:
        i = args.index("--big")
        big = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    db = sqlite3.connect("file:%s?mode=ro" % args[0], uri=True)
    sizes = {}
    for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        sizes[t] = db.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
    seen = []
    with open(args[1]) as f:
        for line in f:
            sql = json.loads(line).strip()
            if re.match(r"(?is)\s*(SELECT|WITH)\b", sql) and sql not in seen:
                seen.append(sql)
    # Aliases used in the statements ("FROM runs r", "JOIN summaries s").
    for sql in seen:
        for t, a in re.findall(r"(?i)\b(?:FROM|JOIN)\s+(\w+)(?:\s+AS)?\s+(\w+)", sql):
            if t in sizes and a.upper() not in ("WHERE", "JOIN", "ON", "LEFT",
                                               "GROUP", "ORDER", "USING",
                                               "INNER", "CROSS", "LIMIT"):
                sizes.setdefault("?" + a, sizes[t])
    report = []
    for sql in seen:
        try:
            rows = plan_rows(db, sql)
        except sqlite3.Error as e:
            report.append((0, sql, ["(not explained: %s)" % e], []))
            continue
        bad = suspects(rows, sizes, big)
        report.append((len(bad), sql, [r[3] for r in rows], bad))
    report.sort(key=lambda r: -r[0])
    nbad = sum(1 for r in report if r[0])
    for nb, sql, plan, bad in report:
        print("=" * 72)
        print(("SUSPECT: " + "; ".join(bad)) if nb else "ok")
        print(re.sub(r"\s+", " ", sql)[:400])
        for p in plan:
            print("    " + p)
    print("query-plans: %d statements, %d suspect (tables over %d rows: %s)" %
          (len(report), nbad, big,
           ", ".join("%s %d" % (t, n) for t, n in sorted(sizes.items())
                     if not t.startswith("?") and n > big)))
    return 1 if nbad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""csv-numeric.py FILE MIN: read the report csv FILE with Python's csv
module, as a csv reader takes it, and check that every column whose name
says it holds an interval or its estimate (the name has "CI" in it) or a
p-value (it ends in " p" or " p (Holm)") holds only numbers or empty
fields: each value parses with float(), or is "".
Issue 20: csv readers (csvkit, pandas) must read the columns as numbers,
so an interval "[lo, hi]" is two columns, "NAME lo" and "NAME hi".

At least one such column must exist, every "NAME lo" must have its
"NAME hi", and at least MIN values must be numbers, so that a table
whose intervals are all missing cannot pass by being empty.  Prints the
columns and the count; exit 0 when all holds, 1 with the first offending
value on stderr when not, 2 on bad usage or an unreadable file."""
import csv
import math
import re
import sys

P_COLUMN = re.compile(r"(^|\s)p( \(Holm\))?$")


def main():
    if len(sys.argv) != 3:
        print("usage: csv-numeric.py FILE MIN", file=sys.stderr)
        return 2
    want = int(sys.argv[2])
    try:
        with open(sys.argv[1], newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, csv.Error) as e:
        print(f"csv-numeric: {sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("csv-numeric: no header", file=sys.stderr)
        return 1
    head = rows[0]
    cols = [i for i, name in enumerate(head)
            if "CI" in name or P_COLUMN.search(name)]
    if not cols:
        print("csv-numeric: no interval column", file=sys.stderr)
        return 1
    for i in cols:
        if head[i].endswith(" lo") and head[i][:-3] + " hi" not in head:
            print(f"csv-numeric: {head[i]!r} without its hi", file=sys.stderr)
            return 1
    numbers = 0
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(head):
            print(f"csv-numeric: line {n}: {len(row)} fields, header {len(head)}",
                  file=sys.stderr)
            return 1
        for i in cols:
            v = row[i]
            if v == "":
                continue
            try:
                ok = math.isfinite(float(v))
            except ValueError:
                ok = False
            if not ok:
                print(f"csv-numeric: line {n}, {head[i]!r}: {v!r} is not a number",
                      file=sys.stderr)
                return 1
            numbers += 1
    print(f"{len(cols)} columns ({', '.join(head[i] for i in cols)}), {numbers} numbers")
    if numbers < want:
        print(f"csv-numeric: {numbers} numbers, at least {want} wanted", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

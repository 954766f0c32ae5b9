#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""json-validate.py SCHEMA INSTANCE: check INSTANCE against the JSON
Schema SCHEMA (draft 7) with Debian's python3-jsonschema.  The schema is
checked against its own meta-schema first, so a broken schema cannot pass
everything.  Exit 0 when valid; 1 with each error (path: message) on
stderr when not; 2 when a file cannot be read or parsed."""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) != 3:
        print("usage: json-validate.py SCHEMA INSTANCE", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        with open(sys.argv[2], encoding="utf-8") as f:
            instance = json.load(f)
    except (OSError, ValueError) as e:
        print(f"json-validate: {e}", file=sys.stderr)
        return 2
    cls = jsonschema.Draft7Validator
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        print(f"json-validate: {sys.argv[1]}: not a valid schema: {e.message}",
              file=sys.stderr)
        return 2
    errors = sorted(cls(schema).iter_errors(instance), key=lambda e: list(e.path))
    for e in errors:
        where = "/".join(str(p) for p in e.path) or "(top)"
        print(f"{sys.argv[2]}: {where}: {e.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

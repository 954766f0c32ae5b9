#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""hd_reference.py - the Harrell-Davis quantile, computed independently of
analysis/ab_hd.c, for the constants tests/unit/test_ab_raw.c checks it
against: every order statistic weighted by the regularized incomplete
beta function (mpmath's betainc, at 40 digits), no window, no grouping of
equal values, the textbook sum.

usage: hd_reference.py P [P ...] < values (one integer a line)
prints, per P, "P value" to 20 significant digits.
"""
import sys

import mpmath

mpmath.mp.dps = 40


def hd(xs, p):
    """The Harrell-Davis p-quantile of the values xs (any order)."""
    xs = sorted(xs)
    n = len(xs)
    a = mpmath.mpf(p) * (n + 1)
    b = (1 - mpmath.mpf(p)) * (n + 1)
    total = mpmath.mpf(0)
    prev = mpmath.mpf(0)
    for i in range(1, n + 1):
        cur = mpmath.betainc(a, b, 0, mpmath.mpf(i) / n, regularized=True)
        total += (cur - prev) * xs[i - 1]
        prev = cur
    return total


def main():
    xs = [int(line) for line in sys.stdin if line.strip()]
    for arg in sys.argv[1:]:
        print("%s %s" % (arg, mpmath.nstr(hd(xs, mpmath.mpf(arg)), 20)))


if __name__ == "__main__":
    main()

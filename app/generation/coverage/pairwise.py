"""All-pairs rows by IPOG (Lei and Tai's in-parameter-order growth): the two largest factors in
full, then each further factor added to the rows (horizontal growth: the level covering the most
uncovered pairs, the least used one on a tie) and rows added for the pairs still uncovered
(vertical growth); then rows whose pairs all recur elsewhere are dropped. A few factor orders
are tried and the smallest set kept. Levels carry the pins that force them; two levels whose
pins conflict (a field inside a branch and another branch) never share a row, and their pair is
reported unreachable instead of covered."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

Compatible = Callable[[int, int, int, int], bool]  # factor a, level of a, factor b, level of b
Row = list[int | None]  # a level per factor; None: any (the record draws it)
_SHUFFLES = 6


def _any(a: int, la: int, b: int, lb: int) -> bool:
    return True


def ipog(
    sizes: Sequence[int], compatible: Compatible | None = None, tick: Callable[[], object] | None = None
) -> list[Row]:
    """Rows covering every compatible pair of levels of every two factors. `tick` is called
    between factors (a deadline's check: it raises to stop)."""
    ok: Compatible = compatible or _any
    n = len(sizes)
    if n == 0:
        return []
    base = sorted(range(n), key=lambda f: -sizes[f])
    if n == 1:
        return [[lv] for lv in range(sizes[0])]
    orders = [base]
    if n > 2:
        orders.append([base[0], base[2], base[1], *base[3:]])
        orders.append([*base[:2], *reversed(base[2:])])
        # factors that exclude levels of others (nested in an optional part or a branch) placed
        # early or late change the result most; a few seeded shuffles of the rest try more
        shuffle = random.Random(len(sizes))
        for _ in range(_SHUFFLES):
            rest = base[2:]
            shuffle.shuffle(rest)
            orders.append([*base[:2], *rest])
    best: list[Row] | None = None
    for order in orders:
        for rotate in (False, True):
            rows = _prune(_grow(sizes, ok, order, rotate, tick), n)
            if best is None or len(rows) < len(best):
                best = rows
    assert best is not None
    return best


def _grow(
    sizes: Sequence[int], ok: Compatible, order: list[int], rotate: bool, tick: Callable[[], object] | None
) -> list[Row]:
    """IPOG over `order`; `rotate`: the candidate levels of row i start at level i (a Latin
    square's diagonal where the gains tie), else the least used level wins a tie."""
    n = len(sizes)

    def fits(row: Row, f: int, lv: int) -> bool:
        return all(g == f or (x := row[g]) is None or ok(g, x, f, lv) for g in range(n))

    rows: list[Row] = []
    first, second = order[0], order[1]
    for a in range(sizes[first]):
        for b in range(sizes[second]):
            if ok(first, a, second, b):
                row: Row = [None] * n
                row[first], row[second] = a, b
                rows.append(row)
    for k in range(2, n):
        if tick is not None:
            tick()
        f = order[k]
        done = order[:k]
        uncovered = {
            (g, lg, lf)
            for g in done
            for lg in range(sizes[g])
            for lf in range(sizes[f])
            if ok(g, lg, f, lf)
        }
        used: Counter[int] = Counter()
        # horizontal growth
        for i, row in enumerate(rows):
            pick, key = None, (-1, 0)
            start = i % sizes[f] if rotate else 0
            for lf in [*range(start, sizes[f]), *range(start)]:
                if not fits(row, f, lf):
                    continue
                got = sum(1 for g in done if row[g] is not None and (g, row[g], lf) in uncovered)
                score = (got, 0 if rotate else -used[lf])
                if score > key:
                    pick, key = lf, score
            if pick is None:
                continue
            row[f] = pick
            used[pick] += 1
            for g in done:
                if (x := row[g]) is not None:
                    uncovered.discard((g, x, pick))
        # vertical growth
        for g, lg, lf in sorted(uncovered):
            if not any(row[g] == lg and row[f] == lf for row in rows):
                _place(rows, fits, n, g, lg, f, lf)
    return rows


def _place(rows: list[Row], fits: Callable[[Row, int, int], bool], n: int, g: int, lg: int, f: int, lf: int) -> None:
    for row in rows:
        if row[g] in (None, lg) and row[f] in (None, lf):
            trial = list(row)
            trial[g], trial[f] = lg, lf
            if fits(trial, g, lg) and fits(trial, f, lf):
                row[g], row[f] = lg, lf
                return
    row = [None] * n
    row[g], row[f] = lg, lf
    rows.append(row)


def _pairs(row: Row, n: int) -> list[tuple[int, int, int, int]]:
    return [
        (a, la, b, lb)
        for a in range(n)
        for b in range(a + 1, n)
        if (la := row[a]) is not None and (lb := row[b]) is not None
    ]


def _prune(rows: list[Row], n: int) -> list[Row]:
    """Drop rows (last first) whose pairs all recur in other rows."""
    count: Counter[tuple[int, int, int, int]] = Counter(p for r in rows for p in _pairs(r, n))
    keep = list(rows)
    for row in reversed(rows):
        pairs = _pairs(row, n)
        if all(count[p] > 1 for p in pairs):
            keep.remove(row)
            count.subtract(pairs)
    return keep


def pairs_missed(rows: Sequence[Row], sizes: Sequence[int], compatible: Compatible | None = None) -> int:
    """Compatible pairs no row covers (0 for a correct set)."""
    ok: Compatible = compatible or _any
    seen = {(a, r[a], b, r[b]) for r in rows for a in range(len(r)) for b in range(a + 1, len(r))}
    return sum(
        1
        for a in range(len(sizes))
        for b in range(a + 1, len(sizes))
        for la in range(sizes[a])
        for lb in range(sizes[b])
        if ok(a, la, b, lb) and (a, la, b, lb) not in seen
    )

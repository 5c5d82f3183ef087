#!/usr/bin/env python3
# 2026-12-02
# bench/kg/sqlite_peer.py DIR - the peer of bench_kg's BFS/shortest-path rows: SQLite (Python's
# sqlite3, in memory, edges(src, dst) indexed both ways) answering BFS to depth 3 and a shortest
# path with recursive CTEs over the same edges (DIR/edges_N.tsv) and the same start/end nodes.
# Median of the runs, in microseconds.
import sqlite3, sys, time, statistics
d = sys.argv[1]
for n_edge in (1000, 100000, 1000000):
    n_ent = n_edge // 5
    db = sqlite3.connect(":memory:")
    db.execute("create table e(src integer, dst integer)")
    with open(f"{d}/edges_{n_edge}.tsv") as f:
        rows = [tuple(map(int, l.split())) for l in f]
    db.executemany("insert into e values (?, ?)", rows)
    # both directions, as cairn's traversals are
    db.execute("create table u as select src a, dst b from e union all select dst, src from e")
    db.execute("create index ua on u(a)")
    bfs = """with recursive r(n, d) as (select ?, 0 union select u.b, r.d + 1 from r join u on u.a = r.n where r.d < 3)
             select count(distinct n) from r"""
    # shortest path length: BFS levels (rows distinct on (node, depth), depth capped at 6; SQLite
    # allows one recursive reference, so it cannot stop at the target), then the first depth
    path = """with recursive r(n, d) as (select ?, 0 union select u.b, r.d + 1 from r join u on u.a = r.n where r.d < 6)
              select min(d) from r where n = ?"""
    runs = 200 if n_edge < 1000000 else 20
    tb, tp = [], []
    for i in range(runs):
        s = 1 + (i * 7919) % n_ent
        t0 = time.perf_counter(); db.execute(bfs, (s,)).fetchone(); tb.append(time.perf_counter() - t0)
    for i in range(min(runs, 20 if n_edge < 1000000 else 5)):
        a, b = 1 + (i * 7919) % n_ent, 1 + (i * 104729) % n_ent
        t0 = time.perf_counter(); db.execute(path, (a, b)).fetchone(); tp.append(time.perf_counter() - t0)
    print(f"sqlite_bfs3_{n_edge}_edges   {statistics.median(tb) * 1e6:12.1f} us")
    print(f"sqlite_path_{n_edge}_edges   {statistics.median(tp) * 1e6:12.1f} us")
    db.close()

"""Two cases.py outputs side by side: the sums of wall and run-minutes by width, then each case.

    python3 docs/records/search-ahead-2026-12-03/compare.py BEFORE.json AFTER.json
"""
import json
import sys

before, after = (json.load(open(path)) for path in sys.argv[1:3])
for width in ("j2", "j16"):
    total = lambda cases, key: sum(c[key] for c in cases if c["case"].endswith(" " + width))
    print(f"{width[1:]:>2} workers: wall {total(before, 'wall'):.1f} -> {total(after, 'wall'):.1f} minutes summed, "
          f"run-minutes {total(before, 'spent'):.1f} -> {total(after, 'spent'):.1f}")
print("case | wall before -> after | run-minutes before -> after | pick before | after")
for b, a in zip(before, after):
    print(f"{b['case']:30s} | {b['wall']:6.1f} -> {a['wall']:6.1f} | {b['spent']:6.1f} -> {a['spent']:6.1f} | "
          f"{b['pick']} | {a['pick']}{'' if a['pick'] == b['pick'] else '  (another pick)'}")

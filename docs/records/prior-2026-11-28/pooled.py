"""#87: the zero-training prior of minilm and mpnet against both SST-2 grids, pooled.

Reads the tables `python -m study.prior ... --against docs/results/sst2-MODEL/runs` wrote here
(sst2-MODEL-nSIZE.md, the command at each one's top) and prints, per size: Spearman's rank
correlation over the depths within each checkpoint, over every (checkpoint, depth) pooled, and
whether the checkpoint with the higher best LogME is the one whose grid scores higher at its best.

    python docs/records/prior-2026-11-28/pooled.py > docs/records/prior-2026-11-28/pooled.txt
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", ".."))
from study.prior import spearman  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def table(model, size):
    """[(depth, LogME, the grid's best fair mean)] from one table."""
    rows = []
    for line in open(os.path.join(HERE, f"sst2-{model}-n{size}.md")):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].lstrip("-").isdigit():
            rows.append((int(cells[0]), float(cells[2]), float(cells[3])))
    return rows


print("| n | within minilm | within mpnet | pooled (both, every depth) | best LogME: minilm, mpnet | best grid: minilm, mpnet | same checkpoint first |")
print("|---|---|---|---|---|---|---|")
for size in (50, 100, 200, 500, 1000):
    if not os.path.exists(os.path.join(HERE, f"sst2-mpnet-n{size}.md")):
        continue
    tables = {model: table(model, size) for model in ("minilm", "mpnet")}
    within = [spearman([r[1] for r in rows], [r[2] for r in rows]) for rows in tables.values()]
    pooled = [r for rows in tables.values() for r in rows]
    best_prior = [max(r[1] for r in rows) for rows in tables.values()]
    best_grid = [max(r[2] for r in rows) for rows in tables.values()]
    same = (best_prior[0] < best_prior[1]) == (best_grid[0] < best_grid[1])
    print(f"| {size} | {within[0]:.2f} | {within[1]:.2f} | {spearman([r[1] for r in pooled], [r[2] for r in pooled]):.2f} | "
          f"{best_prior[0]:.3f}, {best_prior[1]:.3f} | {best_grid[0]:.3f}, {best_grid[1]:.3f} | {'yes' if same else 'no'} |")

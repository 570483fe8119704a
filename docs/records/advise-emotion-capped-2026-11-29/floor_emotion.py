"""The floor for a search folder of emotion (bench/advise_levers.py's print_floor, read on the dev
split's first half as the search reads): the folder's answer on 5 seeds, its best on 2, each
method's least frozen depth once; in run-seconds and in wall clock at 2 at once. At 51bf807:
    PYTHONPATH=. .venv/bin/python docs/records/advise-cap-2026-11-29/floor_emotion.py FOLDER ...   (output: floor.txt)."""
import sys
import numpy as np
from study import policy
from study.replay import grid_at, reading, search_cost
from study.answer import answer_cells, recommend
from study.standing import Cell, standing
for folder in sys.argv[1:]:
    runs, metric, cells = grid_at(folder, 200)
    score_of, dev = reading(runs)
    cost = lambda cell: float(np.median([search_cost(r) for r in cells[cell]]))
    observed = {c: [(score_of(r, metric), search_cost(r)) for r in rs] for c, rs in cells.items()}
    space = policy.space_for(200, 6, [-1, 0, 1, 2, 3, 4, 5, 6], sorted({c.method for c in cells}), available=lambda c: 0)
    answer, _ = policy.pick(space, observed, metric, dev)
    st = standing(observed, metric, dev)
    best = st.best
    floor = policy.PICK_SEEDS * cost(answer) + (policy.BEST_SEEDS * cost(best) if best != answer else 0.0)
    least = {}
    for cell in sorted(cells, key=lambda cell: (cell.freeze, cost(cell))):
        least.setdefault(cell.method, cell)
    known = floor + sum(cost(c) for c in least.values() if c not in (answer, best))
    total = sum(search_cost(r) for r in runs)
    print(f"{folder}: answer {answer.method} k={answer.freeze} {answer.lr}, best {best.method} k={best.freeze} {best.lr}; "
          f"floor {floor:.0f} s, with each method once {known:.0f} s ({known/60/2:.1f} min at 2 at once); the folder's runs {total:.0f} s")

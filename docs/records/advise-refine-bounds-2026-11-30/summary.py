"""One row per variant from the replays' tables (replay-*.txt in this folder): each grid's share and
the picks out of the band or undecided.

    python docs/records/advise-refine-bounds-2026-11-30/summary.py > summary.txt
"""
import glob
import os
import re

here = os.path.dirname(os.path.abspath(__file__))
print("| variant | sst2-minilm | cola-minilm | sst2-mpnet | in the band | out of it | undecided (made runs missing) |")
print("|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(here, "replay-*.txt")), key=lambda p: (not p.endswith("plain.txt"), p)):
    text = open(path).read()
    shares = dict(re.findall(r"^(\S+): the search spent .* = ([\d.]+%)", text, re.M))
    rows = [line.split(" | ") for line in text.splitlines() if re.match(r"\| (sst2|cola)-", line)]
    out = [f"{row[0][2:]} n = {row[1]}" for row in rows if row[5].startswith("NO")]
    undecided = [f"{row[0][2:]} n = {row[1]}" for row in rows if "undecided" in row[3]]
    name = os.path.basename(path)[len("replay-"):-len(".txt")]
    print(f"| {name} | {shares.get('sst2-minilm')} | {shares.get('cola-minilm')} | {shares.get('sst2-mpnet')} "
          f"| {len(rows) - len(out)} of {len(rows)} | {', '.join(out) or 'none'} | {', '.join(undecided) or 'none'} |")

"""The honest score of a search's pick on a dev split, as advise_report.honest_of reads it: run at
2c56c49 and at d368050 over the same folders, to show the replay across folds left one split's
figures as they were. Run from the project's root: python honest_same.py FOLDER:SIZE ...
"""
import sys
sys.path.insert(0, ".")
from study.search.advise_report import honest_of
from study.search.asked import SEARCHED
from study.search.search_folder import read_folder
from study.search.space import space_for
from dataclasses import replace
from study.search.standing import answer_of, standing
for spec in sys.argv[1:]:
    folder, size = spec.split(":")
    space = replace(space_for(int(size), 6, [6, 5, 4, 3, 2, 1, 0, -1], SEARCHED), prefer="best")
    every, observed, metric = read_folder(folder, int(size), space)
    state = standing(observed, metric, every[0]["dev_size"])
    pick = answer_of(state, space)
    h = honest_of(space, observed, metric, every[0]["dev_size"], pick)
    print(folder, pick, repr(h.score), repr(h.error), h.agreement)

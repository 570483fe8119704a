"""freeze_study.py as it is, or (--drop-next-fold) with one fold fewer to train on: fold f's run
trains on the folds other than f and f + 1 (fold 5: 1) and is scored on fold f as before, so that
its score and the run's at four fifths read the same examples. Run from the project's root:

    python docs/records/advise-one-file-curve-2026-12-06/curve_run.py [--drop-next-fold] FREEZE_STUDY_OPTIONS...

The run's record still says it trained on four fifths (the plan counts folds, not positions)."""
import sys

import numpy as np

sys.path.insert(0, ".")
import data  # noqa: E402
import freeze_study  # noqa: E402

if sys.argv[1] == "--drop-next-fold":
    del sys.argv[1]
    four_fifths = data.fold_positions

    def three_fifths(task, subset, folds, fold):
        trained, scored = four_fifths(task, subset, folds, fold)
        return np.setdiff1d(trained, four_fifths(task, subset, folds, fold % folds + 1)[1]), scored

    data.fold_positions = three_fifths
freeze_study.main(sys.argv[1:])

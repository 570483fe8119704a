"""A fast SetFit run whose body's steps are capped at CAP epochs of class blocks (an experiment, not kept):
python /tmp/q/capped.py CAP freeze_study options..."""
import sys
sys.path.insert(0, "/work/main")
import numpy as np
import contrastive
import freeze_study

CAP = int(sys.argv.pop(1))
library_share = contrastive.fast_steps


def capped(labels, num_iterations=None):
    epoch = len(contrastive.class_blocks(labels, np.random.default_rng(0)))
    return min(library_share(labels, num_iterations), CAP * epoch)


contrastive.fast_steps = capped
freeze_study.main(sys.argv[1:])

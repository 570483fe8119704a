"""
probe.py against scikit-learn's LogisticRegressionCV on the same features: the checkpoint's
sentence embedding of each training subset (the frozen model, as `freeze_study.py --method probe`
computes it). scikit-learn is not a dependency of the project; run this in the setfit bench
environment, which has it (bench/setfit_library.py says how to make it):

    .venv-setfit/bin/python -m bench.compare_probe --glue-dir ../shared/glue --sizes 50 100 200 500 1000

Per size: the folds, the cross-validated scores of every C and the pick, and the dev accuracy, for
ours and for scikit-learn run to convergence (tol 1e-10); and scikit-learn at its default tolerance
(lbfgs, max_iter 100), which stops short of the optimum at large C.
"""

import argparse
import warnings

import numpy as np

from parts import families
import hub
import freeze_study  # the same subsets, cache and embedding as a probe run
import probe


def embeddings(args, size):
    """The training subset's and the dev split's sentence embeddings, (n, H) and (N, H), as a probe run reads them."""
    depth = families.read_config(hub.checkpoint_folder(args.model)).num_layers
    run = freeze_study.parse_args(["--dataset", args.dataset, "--model", args.model, "--glue-dir", args.glue_dir,
                                   "--size", str(size), "--method", "probe", "--freeze", str(depth), "--precision", "fp32",
                                   "--splits-dir", args.splits_dir, "--cache-dir", args.cache_dir])
    task, indices = freeze_study.load_task_and_subset(run)
    plan = freeze_study.plan_run(run, task)
    classifier = freeze_study.build_and_freeze(plan, task)
    token_ids, _ = freeze_study.tokenize_task(plan, classifier, task, indices)
    states, _ = freeze_study.frozen_prefix_states(plan, classifier, task, token_ids)
    embed = lambda states: probe.all_sentence_embeddings(classifier, states, depth, plan.device,
                                                         plan.precision).astype(np.float64)
    return embed(states["train"]), task.train_labels[indices], embed(states["dev"]), task.dev_labels


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="minilm")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--glue-dir", required=True)
    p.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 500, 1000])
    p.add_argument("--splits-dir", default="splits")
    p.add_argument("--cache-dir", default="cache")
    args = p.parse_args()
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.model_selection import StratifiedKFold
    warnings.filterwarnings("ignore")  # scikit-learn's convergence and future-default warnings
    print("| n | same folds | largest CV difference | ours: C, dev | scikit-learn converged: C, dev "
          "| scikit-learn at its defaults: C, dev |\n|---|---|---|---|---|---|")
    for size in args.sizes:
        x, y, dev_x, dev_y = embeddings(args, size)
        theirs = np.empty(len(y), dtype=np.int64)
        for fold, (_, held_out) in enumerate(StratifiedKFold(probe.FOLDS).split(x, y)):
            theirs[held_out] = fold
        ours = probe.run(x, y, dev_x, dev_y, 2, "accuracy")
        converged = LogisticRegressionCV(cv=probe.FOLDS, max_iter=10000, tol=1e-10).fit(x, y)
        default = LogisticRegressionCV(cv=probe.FOLDS).fit(x, y)
        cv_gap = np.abs(converged.scores_[1].mean(0) - np.array(list(ours["cross_validation"].values()))).max()
        accuracy = lambda model: float((model.predict(dev_x) == dev_y).mean())
        print(f"| {size} | {'yes' if (theirs == probe.stratified_folds(y)).all() else 'NO'} | {cv_gap:.4f} "
              f"| {ours['C']:.4g}, {ours['dev']['accuracy']:.4f} | {converged.C_[0]:.4g}, {accuracy(converged):.4f} "
              f"| {default.C_[0]:.4g}, {accuracy(default):.4f} |", flush=True)


if __name__ == "__main__":
    main()

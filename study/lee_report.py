"""
Lee, Tang & Lin (2019)'s tables and Figure 1 from the runs of one or more tasks, each a folder of
results of the grid in their protocol (make grid PROTOCOL=lee SIZES=all LRS="1e-5 ... 5e-5"):

    python -m study.lee_report results/mrpc/minilm results/stsb/minilm results/rte/minilm --out docs/results/lee

Each task's learning rate is picked as the paper picks it: a line search on the full model (k = 0),
the rate that scores best on the seeds every rate was run with; every depth is then read at that
rate. The seeds a depth sweep adds at the picked rate do not take part: a mean of five seeds set
against single runs would favour whichever rate has fewer, and would change the pick after the
depths were run at it. A ratio to the full fine-tune flatters a score that predicting one class
already reaches, so each task also shows its best constant prediction (the majority class for
accuracy, always class 1 for F1, 0 for MCC and correlations), each depth's share of the full
fine-tune's gain over it, and which depths no more than reach it (within one seed std); those are
never an operating point. A cell run on a CPU and on a GPU pools the two only where they agree
(study.folder.pool_devices). Writes report.md (the line search; per task the full fine-tune, the 90%
operating point and everything frozen, beside the paper's bert-base and roberta-base rows) and
figure.png (the paper's Figure 1: the change relative to the full fine-tune against the share of
layers frozen, a panel per task). A folder's runs of another method (--method lora, bitfit) get the
same line search of their own and a table beside the recipe's, at equal depth (not in the figure),
and every task of the LoRA paper's Table 2 sets its roberta-base rows beside ours, in its metric.
"""

import argparse
import os
import sys

import numpy as np

from atomic import write_atomically
import methods
from methods import lr_text
from result import method_of, model_label
from study.published import LEE_MODELS, LORA_PAPER_METHODS, LORA_PAPER_ROWS, REFERENCE_LAYERS, lee_rows, lora_paper_rows
from study.folder import devices_line, load_results, no_results, pool_devices, precision_of
from study.stats import median_of, number
def summarize(results):
    """One task's runs -> the line search (each rate's k = 0 runs by seed, and its score: their mean
    on the seeds all rates share), the picked learning rate, and per depth at that rate the runs'
    scores, their mean and std, the mean as a share of the full fine-tune's, and its median seconds."""
    config, metric = results[0]["config"], results[0]["metric"]
    constant = results[0]["constant"][metric]  # the best constant prediction's score (metrics.constant_scores)
    search = {}  # {learning rate: {seed: score}} of the k = 0 runs (a seed run on two devices: their mean)
    for r in results:
        if r["config"]["freeze"] == 0:
            search.setdefault(r["config"]["lr"], {}).setdefault(r["config"]["seed"], []).append(r["score"])
    search = {rate: {seed: float(np.mean(v)) for seed, v in scores.items()} for rate, scores in search.items()}
    if not search:
        raise ValueError(f"{config['task']}: no k = 0 runs, so no line search to pick a learning rate from")
    seeds = sorted(set.intersection(*(set(scores) for scores in search.values())))
    if not seeds:
        raise ValueError(f"{config['task']}: the learning rates of the k = 0 runs share no seed, so the line "
                         "search cannot compare them: run every rate with the same seed (SEEDS=1 LRS=...)")
    search_score = {rate: float(np.mean([scores[seed] for seed in seeds])) for rate, scores in search.items()}
    lr = max(search_score, key=lambda rate: (search_score[rate], -rate))  # equal scores: the smaller rate
    cells, notes, seconds, readings = {}, {}, {}, {}
    for r in results:
        if r["config"]["lr"] == lr:
            cells.setdefault(r["config"]["freeze"], []).append(r)
    for k, runs in cells.items():
        runs, notes[k] = pool_devices(runs, lambda r: r["score"])
        seconds[k] = median_of(runs, lambda r: r["seconds"]["total"])
        by_seed = {}  # a seed run on both devices counts once, as in the line search
        for r in runs:
            by_seed.setdefault(r["config"]["seed"], []).append(r)
        per_seed = lambda value: [float(np.mean([value(r) for r in same])) for seed, same in sorted(by_seed.items())]
        cells[k] = per_seed(lambda r: r["score"])
        # every metric the runs recorded at their score, so that other papers' tables read ours in theirs
        readings[k] = {metric: float(np.mean(per_seed(lambda r: r["at_score"][metric])))
                       for metric in set.intersection(*(set(r["at_score"]) for r in runs))}
    full = float(np.mean(cells[0]))
    depths = {}
    for k, scores in sorted(cells.items()):
        mean, std = float(np.mean(scores)), float(np.std(scores, ddof=1)) if len(scores) > 1 else 0.0
        depths[k] = dict(scores=scores, mean=mean, std=std if len(scores) > 1 else float("nan"),
                         share=mean / full if full else float("nan"),  # the paper's ratio
                         gain_share=(mean - constant) / (full - constant) if full > constant else float("nan"),
                         constant_level=mean <= constant + std,  # no more than one class (or score) for all
                         devices=notes[k], seconds=seconds[k], readings=readings[k])
    learnt = {k: d for k, d in depths.items() if not d["constant_level"] or k == 0}
    operating_point = max((k for k, d in learnt.items() if d["mean"] >= 0.9 * full), default=0)
    gain_point = max((k for k, d in learnt.items() if d["gain_share"] >= 0.9), default=None)
    return dict(task=config["task"], metric=results[0]["metric"], num_layers=config["num_layers"],
                model=model_label(config["model"]), search=search, seeds=seeds,
                search_score=search_score, lr=lr, depths=depths, constant=constant,
                operating_point=operating_point, gain_point=gain_point)


def summarize_method(method, runs):
    """summarize() for another method's runs, its errors naming the method."""
    try:
        return summarize(runs)
    except ValueError as e:
        raise ValueError(f"{methods.get(method).label}: {e}") from None


def task_lines(s):
    L = s["num_layers"]
    lines = [f"### {s['task']} ({s['metric']}), learning rate {s['lr']:g}", "",
             "| model | frozen | of layers | runs | mean | std | of the full fine-tune | of its gain over the constant | |",
             "|---|---|---|---|---|---|---|---|---|",
             f"| best constant prediction | | | | {number(s['constant'])} | | | | |"]
    for k, d in s["depths"].items():
        marks = ["full fine-tune" if k == 0 else "all frozen" if k == L else "",
                 "90% operating point" if k == s["operating_point"] and k else "",
                 "90% of the gain" if k == s["gain_point"] and k else "",
                 "no better than the constant" if d["constant_level"] else "", d["devices"]]
        lines.append(f"| {s['model']} | {k} | {k / L:.2f} | {len(d['scores'])} | {number(d['mean'])} "
                     f"| {number(d['std'])} | {d['share']:.1%} | {d['gain_share']:.1%} | {', '.join(m for m in marks if m)} |")
    for model, rows in lee_rows(s["task"]).items():
        for k, score in sorted(rows.items()):
            gain = (score - s["constant"]) / (rows[0] - s["constant"]) if rows[0] > s["constant"] else float("nan")
            lines.append(f"| {model} (paper) | {k} | {k / REFERENCE_LAYERS:.2f} | 5 | {number(score)} | "
                         f"| {score / rows[0]:.1%} | {gain:.1%} | |")
    return lines + [""]


def summary_lines(summaries):
    """Table 4's layout, a row per task: the full fine-tune, the 90% operating point, everything
    frozen, and the paper's two models at their operating point and all frozen."""
    lines = ["| task | metric | constant | full fine-tune | 90% operating point: frozen (kept) | 90% of the gain: frozen "
             "| all frozen: kept (of the gain) | bert-base (paper): operating point, all frozen "
             "| roberta-base (paper): operating point, all frozen |", "|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        L, depths = s["num_layers"], s["depths"]
        if len(depths) > 1:
            point = depths[s["operating_point"]]
            operating = f"{s['operating_point']} of {L} ({point['share']:.1%})"
            gain = f"{s['gain_point']} of {L}" if s["gain_point"] is not None else ""
        else:
            operating, gain = "(no frozen depth run yet)", ""
        everything = depths.get(L)
        frozen = "" if not everything else (f"{everything['share']:.1%} ({everything['gain_share']:.1%})"
                                            + (", no better than the constant" if everything["constant_level"] else ""))
        paper = []
        for model in LEE_MODELS:
            rows = lee_rows(s["task"]).get(model, {})
            middle = [k for k in rows if 0 < k < REFERENCE_LAYERS]
            paper.append(f"{middle[0]} of 12 ({rows[middle[0]] / rows[0]:.1%}), {rows[REFERENCE_LAYERS] / rows[0]:.1%}"
                         if middle and rows.get(0) and REFERENCE_LAYERS in rows else "")
        lines.append(f"| {s['task']} | {s['metric']} | {number(s['constant'])} | {number(depths[0]['mean'])} "
                     f"| {operating} | {gain} | {frozen} | {' | '.join(paper)} |")
    return lines + [""]


def edge_lines(named):
    """A line per (name, summary) of a task or a method whose pick is the largest or smallest rate its
    line search tried: the best rate may lie beyond, and the depths were read at the edge."""
    lines = []
    for name, s in named:
        rates = sorted(s["search"])
        if len(rates) > 1 and s["lr"] in (rates[0], rates[-1]):
            side = "largest" if s["lr"] == rates[-1] else "smallest"
            lines.append(f"- {name}: the pick, {s['lr']:g}, is the {side} rate tried; the best rate may lie "
                         f"{'above' if side == 'largest' else 'below'} it (run k = 0 at "
                         f"{'higher' if side == 'largest' else 'lower'} rates to know).")
    return lines + [""] if lines else []


def method_lines(summaries, beside):
    """Each other method beside the recipe, per task: its line search and its depths at its pick,
    as a share of the recipe's full fine-tune, and the recipe at the same depth; cost in seconds."""
    if not any(beside):
        return []
    lines = ["## Other methods beside the recipe", "",
             "Each method's rate is its own line search's pick at k = 0, by the recipe's rule; its depths run "
             "at it. *Of the full fine-tune*: its mean over the recipe's k = 0 mean. Seconds: the median run.", "",
             "| task | method | line search (score) | frozen | runs | mean | std | of the full fine-tune "
             "| the recipe at this depth | s a run | the recipe's s a run |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s, others in zip(summaries, beside):
        for method, m in others.items():
            search = ", ".join(f"{'**' if lr == m['lr'] else ''}{lr_text(lr)} {number(score)}{'**' if lr == m['lr'] else ''}"
                               for lr, score in sorted(m["search_score"].items()))
            for k, d in m["depths"].items():
                theirs = s["depths"].get(k, {})
                lines.append(f"| {s['task']} | {methods.get(method).label} | {search if k == 0 else ''} | {k} "
                             f"| {len(d['scores'])} | {number(d['mean'])} | {number(d['std'])} "
                             f"| {d['mean'] / s['depths'][0]['mean']:.1%} | {number(theirs['mean']) if theirs else 'not run'} "
                             f"| {number(d['seconds'], 0)} | {number(theirs.get('seconds', float('nan')), 0)} |")
    return lines + [""] + edge_lines([(f"{s['task']}, {methods.get(method).label}", m)
                                      for s, others in zip(summaries, beside) for method, m in others.items()])


def lora_paper_lines(summaries, beside):
    """Each task of the LoRA paper's Table 2: its roberta-base rows (the full fine-tune, BitFit, LoRA)
    beside ours at k = 0, each method at its own pick, read in the paper's metric; each score also as
    a share of its own side's full fine-tune, which is what compares across two models."""
    def cells(scores):  # the full fine-tune, then BitFit and LoRA with their share of it
        full = scores.get(methods.FINETUNE.name)
        return [number(full) if full is not None else "not recorded"] + [
            "not run" if scores.get(m) is None else number(scores[m]) + (f" ({scores[m] / full:.1%})" if full else "")
            for m in (LORA_PAPER_METHODS[row] for row in LORA_PAPER_ROWS[1:])]

    rows = []
    for s, others in zip(summaries, beside):
        paper = lora_paper_rows(s["task"])
        if paper is None:
            continue
        metric, theirs = paper
        ours = {method: m["depths"][0]["readings"].get(metric) for method, m in {methods.FINETUNE.name: s, **others}.items()}
        rows.append(f"| {s['task']} | {metric} | {' | '.join(cells(theirs) + cells(ours))} |")
    if not rows:
        return []
    return ["## Beside the LoRA paper's roberta-base rows", "",
            "The paper's Table 2 (Hu et al. 2021): roberta-base, the median of 5 seeds at each run's best epoch, "
            "LoRA at its own settings (rank 8 on the query and value projections, 30 to 80 epochs, rates 4e-4 "
            "and 5e-4). Caveat: its LoRA runs on MRPC, RTE and STS-B start from LoRA weights adapted to MNLI, "
            "not from the pretrained model, and its full fine-tune and BitFit rows are quoted from earlier papers. "
            f"Ours: {summaries[0]['model']} at k = 0, each method at its own line search's pick, the mean over "
            "seeds of the protocol's reading, in the paper's metric (so MRPC by accuracy and STS-B by Pearson, "
            "where the tables above read F1 and Spearman). In brackets, each score as a share of its own side's "
            "full fine-tune: the models differ, so compare the shares.", "",
            "| task | read in | roberta-base (paper): full fine-tune | BitFit | LoRA | ours: full fine-tune | BitFit "
            "| LoRA |", "|---|---|---|---|---|---|---|---|"] + rows + [""]


def write_report(folder, summaries, results, beside):
    runs = sum(len(r) for r in results)
    precisions = sorted({precision_of(r, s["task"]) for r, s in zip(results, summaries)})
    lines = [f"# Lee et al. (2019)'s tables: {summaries[0]['model']}, full training sets", "",
             f"{runs} runs, in {' and '.join(precisions)}, on {devices_line([r for rs in results for r in rs])}. The paper's protocol (freeze_study.py --protocol lee). Each task's "
             "learning rate is the line search's pick (the best k = 0 score on the seeds every rate ran); every "
             "depth is read at it. "
             "*90% operating point*: the most frozen layers whose mean keeps 90% of the full fine-tune's (the "
             "paper's ratio), not counting a depth that is *no better than the constant*: its mean within one seed "
             "std of the best constant prediction on the dev split (majority class for accuracy, always class 1 for "
             "F1, 0 for MCC and correlations). *90% of the gain*: the most frozen layers that keep 90% of the full "
             "fine-tune's gain over that constant. The paper's rows are means of 5 runs with 12-layer models.", "",
             "## Summary", ""] + summary_lines(summaries)
    lines += ["## Line search on the full model (k = 0)", "",
              "The pick compares the rates on the seeds they all ran; *all k = 0 runs* adds the seeds the "
              "depth sweep ran at the pick.", "",
              "| task | learning rate | line search: seeds | score | all k = 0 runs | mean | std | picked |",
              "|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        for lr, scores in sorted(s["search"].items()):
            values = list(scores.values())
            std = np.std(values, ddof=1) if len(values) > 1 else float("nan")
            lines.append(f"| {s['task']} | {lr:g} | {' '.join(map(str, s['seeds']))} | {number(s['search_score'][lr])} "
                         f"| {len(values)} | {number(float(np.mean(values)))} | {number(float(std))} "
                         f"| {'yes' if lr == s['lr'] else ''} |")
    lines += [""] + edge_lines([(s["task"], s) for s in summaries])
    lines += method_lines(summaries, beside) + lora_paper_lines(summaries, beside) + ["## Per task", ""]
    for s in summaries:
        lines += task_lines(s)
    write_atomically(os.path.join(folder, "report.md"), lambda f: f.write("\n".join(lines).encode()))


def write_figure(folder, summaries):
    """The paper's Figure 1: per task, the change relative to the full fine-tune (%) against the
    share of layers frozen; ours one dot per run and a line through the means, the paper's
    bert-base and roberta-base rows as open markers, and where the best constant prediction sits."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, len(summaries), figsize=(3.6 * len(summaries) + 0.4, 3.6), squeeze=False)
    for ax, s in zip(axes[0], summaries):
        L, full = s["num_layers"], s["depths"][0]["mean"]
        ks = list(s["depths"])
        for k in ks:
            change = [100 * (v / full - 1) for v in s["depths"][k]["scores"]]
            ax.scatter([k / L] * len(change), change, s=12, color="tab:blue", alpha=0.6)
        ax.plot([k / L for k in ks], [100 * (s["depths"][k]["share"] - 1) for k in ks], color="tab:blue",
                label=f"{s['model']} ({L} layers), mean")
        for (model, rows), marker in zip(lee_rows(s["task"]).items(), ("s", "D")):
            depths = sorted(rows)
            ax.plot([k / REFERENCE_LAYERS for k in depths], [100 * (rows[k] / rows[0] - 1) for k in depths],
                    marker=marker, linestyle=":", color="tab:gray", markerfacecolor="none", label=f"{model} (paper)")
        ax.axhline(-10, color="tab:red", linestyle="--", linewidth=1, label="90% of the full fine-tune")
        ax.axhline(100 * (s["constant"] / full - 1), color="tab:orange", linestyle="-.", linewidth=1,
                   label="best constant prediction")
        ax.set_title(f"{s['task']} ({s['metric']})")
        ax.set_xlabel("share of layers frozen")
    axes[0][0].set_ylabel("change relative to k = 0 (%)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    columns = len(labels) if len(summaries) >= 3 else 2  # a narrow figure: the legend in two rows
    figure.legend(handles, labels, loc="lower center", ncol=columns, fontsize=8, frameon=False)
    figure.tight_layout(rect=(0, 0.1 if columns == len(labels) else 0.17, 1, 1))
    write_atomically(os.path.join(folder, "figure.png"), lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)


def main(argv=None):
    p = argparse.ArgumentParser(description="Lee et al. (2019)'s tables and Figure 1 from folders of runs.")
    p.add_argument("folders", nargs="+", help="one folder of runs per task (make grid PROTOCOL=lee ...)")
    p.add_argument("--out", help="where report.md and figure.png go (default: the first folder)")
    args = p.parse_args(argv)
    try:
        results = []
        for folder in args.folders:
            if not os.path.isdir(folder):
                raise ValueError(no_results(folder))
            runs = [r for r in load_results(folder, figure="score") if r["config"]["size"] == "all"]
            if not runs:
                raise ValueError(f"no runs on the whole train split (--size all) in {folder}; "
                                 "run the grid first (make grid PROTOCOL=lee SIZES=all ...)")
            precision_of(runs, folder)
            results.append(runs)
        summaries, beside = [], []  # the recipe's summary per task, and {method: its summary} beside it
        for runs in results:
            by_method = {}
            for r in runs:
                by_method.setdefault(method_of(r["config"]), []).append(r)
            recipe = next((name for name in by_method if methods.get(name).reference), None)
            if recipe is None:
                raise ValueError(f"{runs[0]['config']['task']}: no runs of the recipe, the table every method is read against")
            summaries.append(summarize(by_method.pop(recipe)))
            beside.append({method: summarize_method(method, these) for method, these in sorted(by_method.items())})
    except ValueError as e:
        print(f"lee_report.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    out = args.out or args.folders[0]
    os.makedirs(out, exist_ok=True)
    write_report(out, summaries, results, beside)
    write_figure(out, summaries)
    print(f"lee report: {sum(map(len, results))} runs of {len(results)} tasks -> {out}/report.md, figure.png")


if __name__ == "__main__":
    main()

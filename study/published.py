"""
The published figures our reports set beside our own runs (study/reference/, copied from
../shared/reference/), and how our depths line up with theirs. Both reports read them from here:
report.py the blog study's roberta-base grid, lee_report.py the paper's operating points and the
LoRA paper's GLUE rows.
"""

import csv
import os

import methods
from study.stats import STATISTICS
REFERENCE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference")
REFERENCE_LAYERS = 12  # every published model has 12 layers: the blog's roberta-base, the paper's bert-base and roberta-base

# Lee et al.'s tables: each task's primary metric as a column of lee2019_operating_points.csv (in %)
LEE_COLUMNS = {"cola": "CoLA_MCC", "sst2": "SST-2_acc", "mrpc": "MRPC_F1", "stsb": "STS-B_spearman", "rte": "RTE_acc"}
LEE_MODELS = ("bert-base", "roberta-base")

# The LoRA paper's Table 2 (roberta-base): each task's column of lora2021_glue_roberta_base.csv (in %),
# and the reading of our runs (their at_score) in the same metric: it reads accuracy where Lee (and we)
# read MRPC's F1, and Pearson where we read STS-B's Spearman
LORA_PAPER_COLUMNS = {"cola": ("CoLA_MCC", "mcc"), "sst2": ("SST-2_acc", "accuracy"), "mrpc": ("MRPC_acc", "accuracy"),
                      "stsb": ("STS-B_pearson", "pearson"), "rte": ("RTE_acc", "accuracy")}
# its rows, as the paper names them: the full fine-tune, then two methods as our reports label them (methods.py)
LORA_PAPER_ROWS = ("full fine-tune", "BitFit", "LoRA")
LORA_PAPER_METHODS = {"full fine-tune": methods.FINETUNE.name, **{method.label: method.name for method in methods.METHODS}}


def blog_rows(task):
    """The blog study's roberta-base figures as rows like ours (accuracy only), or [] for a task
    it did not run."""
    path = os.path.join(REFERENCE_DIR, f"blog_{task}_roberta_base.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [dict(train_size=int(r["train_size"]), frozen_layers=int(r["frozen_layers"]),
                     **{f"accuracy_{s}": float(r[s]) for s in STATISTICS}) for r in csv.DictReader(f)]


def lee_rows(task):
    """{model: {frozen layers: score in 0..1}} of Lee et al.'s rows for the task (Tables 3-5)."""
    rows = {}
    with open(os.path.join(REFERENCE_DIR, "lee2019_operating_points.csv")) as f:
        for row in csv.DictReader(f):
            value = row.get(LEE_COLUMNS.get(task, ""), "")
            if row["model"] in LEE_MODELS and value:
                rows.setdefault(row["model"], {})[int(row["frozen_up_to"])] = float(value) / 100
    return rows


def lora_paper_rows(task):
    """(the metric our runs are read in, {our method name: the LoRA paper's roberta-base score in 0..1}),
    or None for a task the paper's table lacks."""
    if task not in LORA_PAPER_COLUMNS:
        return None
    column, metric = LORA_PAPER_COLUMNS[task]
    with open(os.path.join(REFERENCE_DIR, "lora2021_glue_roberta_base.csv")) as f:
        return metric, {LORA_PAPER_METHODS[r["method"]]: float(r[column]) / 100 for r in csv.DictReader(f)}


def reference_depth(k, num_layers):
    """A 12-layer model's k at the same fraction of layers frozen (k = -1 stays -1), or None where
    the fraction falls between its layers: for a 6-layer model, k = 2 compares with k = 4."""
    if k <= 0:
        return k
    return k * REFERENCE_LAYERS // num_layers if k * REFERENCE_LAYERS % num_layers == 0 else None


def reports_mcc(task):
    """Every run records its best MCC, but only CoLA is scored by it (GLUE's metric for CoLA, whose
    accuracy can sit on the majority class while MCC moves), so only CoLA's blog report shows it."""
    return task == "cola"

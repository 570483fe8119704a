"""
Does what `--save` keeps of SetFit and the probe (checkpoint.save_embedder) load in the libraries a
user would reach for? One run with --save, then, on the dev split:

  - sentence-transformers' SentenceTransformer(saved) encodes each sentence to our sentence
    embedding (the largest difference of any coordinate);
  - setfit's SetFitModel, that body and a scikit-learn LogisticRegression holding head.json's
    coefficients, predicts what predict.py predicts (the rows that differ).

It needs the setfit environment (bench/setfit_library.py says how to make it):

    .venv-setfit/bin/python -m bench.embedder_save --glue-dir ../shared/glue --method setfit --freeze 4 --size 50

or, on a folder already saved (make advise's pick, say) and the sentences of your own CSV:

    .venv-setfit/bin/python -m bench.embedder_save --saved saved/emotion-n200 --input test.csv --text-column text
"""

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

import checkpoint
import data
import methods
import predict
import tables


def logistic_head(weight, bias):
    """scikit-learn's LogisticRegression holding a saved softmax head: for two classes its one row
    is the difference of the two (the same decisions), for more the rows themselves."""
    from sklearn.linear_model import LogisticRegression
    head = LogisticRegression()
    coef, intercept = weight.T.numpy(), bias.numpy()  # (C, H), (C,)
    if len(intercept) == 2:
        coef, intercept = coef[1:] - coef[:1], intercept[1:] - intercept[:1]
    head.coef_, head.intercept_, head.classes_ = coef, intercept, np.arange(len(bias))
    return head


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--glue-dir", help="for a run of its own: SST-2's dev split")
    p.add_argument("--method", default=methods.SETFIT.name, choices=[methods.SETFIT.name, methods.PROBE.name])
    p.add_argument("--freeze", default="4")
    p.add_argument("--size", default="50")
    p.add_argument("--seed", default="1")
    p.add_argument("--out", default="bench/out/embedder")
    p.add_argument("--saved", help="a folder --save wrote already (no run)")
    p.add_argument("--input", help="with --saved: a CSV whose sentences to compare on")
    p.add_argument("--text-column", default="text")
    args = p.parse_args()
    if args.saved:
        saved, rows = args.saved, tables.read_table(args.input)
        texts = [row[rows[0].index(args.text_column)] for row in rows[1:]]
        print(f"{saved} on {args.input}: {len(texts)} sentences")
    else:
        shutil.rmtree(args.out, ignore_errors=True)
        saved = os.path.join(args.out, "saved")
        subprocess.run([sys.executable, "freeze_study.py", "--model", "minilm", "--glue-dir", args.glue_dir, "--method",
                        args.method, "--freeze", args.freeze, "--size", args.size, "--seed", args.seed, "--precision",
                        "fp32", "--out", os.path.join(args.out, "run.json"), "--cache-dir", os.path.join(args.out, "cache"),
                        "--splits-dir", os.path.join(args.out, "splits"), "--save", saved, "--quiet"], check=True)
        texts = data.load_glue("sst2", args.glue_dir).dev_texts
        print(f"{args.method}, k = {args.freeze}, n = {args.size}, seed {args.seed}: {len(texts)} dev sentences")
    ours_predicted = predict.outputs_for(saved, texts, None, "cpu")[0]  # class numbers, in the run's precision

    from sentence_transformers import SentenceTransformer
    from setfit import SetFitModel
    body = SentenceTransformer(saved, device="cpu")
    theirs = body.encode(texts, batch_size=64, convert_to_numpy=True)
    spec = checkpoint.sentence_embedding_spec(saved)
    model = checkpoint.from_pretrained(saved)
    model.pooling, model.normalize = spec["pooling"], spec["normalize"]
    import probe
    ours = probe.all_sentence_embeddings(model, predict.token_ids(saved, model, texts, None, spec["max_length"]), None,
                                         torch.device("cpu"), "fp32")
    weight, bias, names = checkpoint.read_head(saved)
    setfit = SetFitModel(model_body=body, model_head=logistic_head(weight, bias))
    theirs_predicted = np.asarray(setfit.predict(texts, as_numpy=True))
    print(f"SentenceTransformer(saved) against our embedding: largest difference {np.abs(theirs - ours).max():.2e} "
          f"(embeddings of norm {np.linalg.norm(ours, axis=1).mean():.3f})")
    print(f"SetFitModel(that body, LogisticRegression with head.json's coefficients) against predict.py: "
          f"{int((theirs_predicted != ours_predicted).sum())} of {len(texts)} predictions differ "
          f"({len(names)} classes: {', '.join(names)})")


if __name__ == "__main__":
    main()

"""protocol.py: the two protocols' numbers and a grid's depths."""

import math

import pytest

import protocol


def test_the_blog_protocol_is_the_trainer_s_defaults_and_lee_s_is_the_paper_s():
    blog, blog_length = protocol.config("blog", "bert", epochs=None, batch_size=16, lr=5e-5, seed=1,
                                        precision="fp32", metric="accuracy")
    assert (blog.epochs, blog.warmup_epochs, blog.selection, blog.eval_at_end, blog_length) == (10, 1, "best", False, math.inf)
    for model_type, epochs in (("bert", 3), ("roberta", 10), ("xlm-roberta", 10), ("mpnet", 3)):  # Lee et al.: 3 epochs for BERT, 10 for RoBERTa
        lee, length = protocol.config("lee", model_type, epochs=None, batch_size=16, lr=2e-5, seed=1,
                                      precision="fp32", metric="f1")
        assert (lee.epochs, lee.warmup_epochs, lee.selection, lee.eval_at_end, length) == (epochs, 0, "last", True, 128)
    given, _ = protocol.config("lee", "bert", epochs=5, batch_size=8, lr=1e-5, seed=3, precision="bf16",
                               metric="spearman")
    assert (given.epochs, given.batch_size, given.lr, given.seed, given.precision, given.metric) == (5, 8, 1e-5, 3, "bf16", "spearman")


def test_a_grid_s_depths():
    assert protocol.freeze_grid(12) == [-1, 0, 2, 4, 8, 10, 12]  # the blog study's
    assert protocol.freeze_grid(6) == [-1, 0, 1, 2, 3, 4, 5, 6]
    assert protocol.freeze_grid(6, "lee") == [0, 3, 4, 5, 6]


def test_make_reads_a_model_s_depths_without_importing_torch(capsys):
    import subprocess
    import sys
    from conftest import ROOT
    check = "import sys, protocol; protocol.main(sys.argv[1:]); print('torch' in sys.modules)"
    printed = subprocess.run([sys.executable, "-c", check, "depths", "minilm", "lee"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split("\n")
    assert printed[:2] == ["0 3 4 5 6", "False"]
    with pytest.raises(SystemExit) as exit_:
        protocol.main(["depths", "./no/such/folder"])
    assert exit_.value.code == 2 and "does not exist" in capsys.readouterr().err

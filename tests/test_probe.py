"""probe.py: an exact fit, scikit-learn's folds and choice of C without the dev split, and the command line."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import freeze_study
import probe
from conftest import run


def toy(n, seed, dim=20, classes=3):
    rng = np.random.default_rng(seed)
    directions = np.random.default_rng(0).normal(size=(dim, classes))
    x = rng.normal(size=(n, dim))
    return x, np.argmax(x @ directions + rng.normal(scale=2.0, size=(n, classes)), axis=1)


@pytest.mark.parametrize("n", [300, 40])  # more examples than the 60 features, and fewer (fit in their span)
def test_softmax_regression_is_at_its_optimum(n):
    x, y = toy(n, 1, dim=60)
    weight, bias = probe.fit(x, y, 3, l2=0.01)
    w, b = weight.clone().requires_grad_(True), bias.clone().requires_grad_(True)
    loss = F.cross_entropy(torch.as_tensor(x) @ w + b, torch.as_tensor(y)) + 0.01 * (w ** 2).sum()
    loss.backward()
    assert w.grad.abs().max() < 1e-5 and b.grad.abs().max() < 1e-5  # the gradient vanishes: the exact fit


@pytest.mark.parametrize("classes", [3, 6])
def test_conjugate_gradients_reach_the_whole_hessian_s_optimum(classes):
    # the faster solve (more than two classes) against the plain one, at a weak and a strong penalty
    x, y = toy(120, 3, dim=30, classes=classes)
    for l2 in (1e-5, 0.1):
        plain = probe.fit_softmax(torch.as_tensor(x), torch.as_tensor(y), classes, l2, solve=probe.hessian_solve)
        fast = probe.fit_softmax(torch.as_tensor(x), torch.as_tensor(y), classes, l2)
        for a, b in zip(plain, fast):  # both at the optimum, to fit_softmax's tolerance
            assert torch.allclose(a, b, atol=1e-6, rtol=0)
        scores = [torch.as_tensor(x) @ weight + bias for weight, bias in (plain, fast)]
        assert torch.equal(scores[0].argmax(1), scores[1].argmax(1))



def test_the_preconditioner_keeping_every_example_is_each_class_s_block_inverted():
    # least_sure_preconditioner with m = n against each class's block of the Hessian built whole
    x, y = toy(50, 4, dim=12, classes=5)
    x1 = torch.cat([torch.as_tensor(x), torch.ones(50, 1, dtype=torch.float64)], 1)  # (n, D)
    theta = torch.as_tensor(np.random.default_rng(5).normal(size=(13, 5)))
    p = torch.softmax(x1 @ theta, 1)
    ridge = torch.full((13, 1), 2 * 0.01, dtype=torch.float64)
    ridge[-1] = 0.0
    flat = torch.zeros(13, 5, dtype=torch.float64)
    flat[-1] = 5 ** -0.5
    r = torch.as_tensor(np.random.default_rng(6).normal(size=(13, 5)))
    whitened = probe.whitened_gram(x1, ridge, flat)
    # it works in the whitened basis, where the residual r is (s U)^T r and a step v is s U v here
    inverse = lambda m: whitened.s[:, None] * (whitened.U @ probe.least_sure_preconditioner(p, whitened, m=m)(
        whitened.U.T @ (whitened.s[:, None] * r)))
    exact = inverse(50)
    for a in range(5):
        block = (x1.T * (p[:, a] * (1 - p[:, a]))) @ x1 / 50 + torch.diag(ridge[:, 0]) + torch.outer(flat[:, a], flat[:, a])
        assert torch.allclose(block @ exact[:, a], r[:, a], atol=1e-8, rtol=0)
    kept_fewer = inverse(8)
    assert (r * kept_fewer).sum(0).min() > 0  # positive definite still, as conjugate gradients need
    assert not torch.allclose(kept_fewer, exact)

@pytest.mark.parametrize("n", [300, 40])
def test_warm_starts_along_the_path_reach_each_penalty_s_own_optimum(n):
    # the cross-validation fits each fold along the grid, each fit from the one before
    x, y = toy(n, 5, dim=60, classes=4)
    penalties = [1.0, 1e-2, 1e-4, 1e-6]
    x64, y64 = torch.as_tensor(x), torch.as_tensor(y)
    objective = lambda model, l2: F.cross_entropy(x64 @ model[0] + model[1], y64) + l2 * (model[0] ** 2).sum()
    for warm, l2 in zip(probe.fit_path(x, y, 4, penalties), penalties):
        alone = probe.fit(x, y, 4, l2)
        # the same minimum (at the weakest penalty the optimum is flat: weights agree only to ~1e-5)
        assert objective(warm, l2).item() == pytest.approx(objective(alone, l2).item(), rel=1e-12, abs=1e-14)
        assert torch.equal((x64 @ warm[0] + warm[1]).argmax(1), (x64 @ alone[0] + alone[1]).argmax(1))


def test_ridge_matches_the_normal_equations():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(200, 5)), rng.normal(size=200)
    weight, bias = probe.fit(x, y, 1, l2=0.5)
    # minimise mean (x w + b - y)^2 + 0.5 |w|^2 with numpy: the bias unpenalised
    augmented = np.hstack([x, np.ones((200, 1))])
    penalty = np.diag([0.5] * 5 + [0.0])
    solution = np.linalg.solve(augmented.T @ augmented / 200 + penalty, augmented.T @ y / 200)
    assert np.allclose(weight[:, 0].numpy(), solution[:5]) and np.isclose(bias.item(), solution[5])


def test_folds_are_scikit_learn_s_stratified_folds():
    # StratifiedKFold(5).split on these labels (scikit-learn 1.9.1): each class in blocks, in order
    labels = np.array([1, 0, 1, 1, 0, 2, 2, 1, 0, 0, 1, 2, 1, 0, 1, 1, 0])
    assert probe.stratified_folds(labels).tolist() == [0, 0, 0, 1, 1, 0, 1, 1, 2, 3, 2, 4, 2, 3, 3, 4, 4]
    balanced = probe.stratified_folds(np.array([0] * 22 + [1] * 28))  # SST-2's 50: ten a fold
    assert [np.bincount(balanced[:22], minlength=5).tolist(), np.bincount(balanced[22:]).tolist()] == \
        [[5, 5, 4, 4, 4], [5, 5, 6, 6, 6]]


def test_the_choice_is_scikit_learn_s_and_the_dev_split_plays_no_part_in_it():
    x, y = toy(200, 3)
    dev_x, dev_y = toy(100, 4)
    first = probe.run(x, y, dev_x, dev_y, 3, "accuracy")
    second = probe.run(x, y, dev_x[::-1].copy(), np.roll(dev_y, 7), 3, "accuracy")  # other dev examples
    assert first["C"] == second["C"] and first["cross_validation"] == second["cross_validation"]
    assert first["train"] == second["train"] and first["dev"] != second["dev"]
    cv = first["cross_validation"]
    assert list(cv) == probe.CS.tolist()  # strongest penalty first: the first of equal bests is the strongest
    assert first["C"] == next(C for C in cv if cv[C] == max(cv.values()))
    assert first["l2"] == pytest.approx(0.5 / (first["C"] * 200))  # refitted on all 200, multinomial
    # the strongest penalty predicts one class; the weakest fits the toy's signal
    assert cv[probe.CS[0]] < cv[probe.CS[-1]]


def test_probe_needs_every_layer_frozen(tmp_path, tiny_bert, glue_dir, capsys):
    with pytest.raises(SystemExit) as exit_:
        freeze_study.main(["--model", tiny_bert, "--glue-dir", glue_dir, "--freeze", "2", "--probe",
                           "--out", str(tmp_path / "r.json"), "--splits-dir", str(tmp_path / "s"), "--quiet"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "use it with --freeze 3" in err


def test_a_probe_given_no_depth_reads_every_layer_and_any_other_method_none(tmp_path, tiny_bert, glue_dir):
    assert run(tmp_path, tiny_bert, glue_dir, "--probe")["config"]["freeze"] == 3  # tiny_bert's 3 layers
    assert run(tmp_path, tiny_bert, glue_dir, "--method", "bitfit")["config"]["freeze"] == 0


def test_probe_run_records_its_fit(tmp_path, tiny_bert, glue_dir):
    argv = ["--model", tiny_bert, "--glue-dir", glue_dir, "--freeze", "3", "--probe", "--size", "50",
            "--out", str(tmp_path / "r.json"), "--splits-dir", str(tmp_path / "s"), "--cache-dir", str(tmp_path / "c"),
            "--quiet"]
    result = freeze_study.run(freeze_study.parse_args(argv))
    assert result["selection"] == "probe" and result["probe"]["C"] in probe.CS.tolist()
    assert result["best_accuracy"] == result["score"] == result["at_score"]["accuracy"]
    assert result["trainable_parameters"] == (32 + 1) * 2 and result["curve"] == []


def test_a_regression_probe_is_ridge_with_its_strength_by_folds_in_order():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(60, 8))
    y = x @ rng.normal(size=8) + rng.normal(scale=3.0, size=60)
    result = probe.run(x, y, x[:20], y[:20], 1, "spearman")
    cv = result["cross_validation"]
    assert result["C"] is None and list(cv) == list(probe.RIDGE_GRID)
    assert result["l2"] == next(l2 for l2 in cv if cv[l2] == max(cv.values()))  # the weakest of equal bests
    # the folds are five contiguous blocks of twelve rows, in order
    by_hand = []
    for fold in range(5):
        held_out = np.zeros(60, dtype=bool)
        held_out[12 * fold:12 * (fold + 1)] = True
        model = probe.fit(x[~held_out], y[~held_out], 1, 1.0)
        by_hand.append(probe.metrics.spearman(y[held_out], probe.predict(model, x[held_out], 1)))
    assert cv[1.0] == pytest.approx(np.mean(by_hand), abs=1e-12)

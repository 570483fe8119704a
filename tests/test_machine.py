"""machine.py: the default precision, what the CPU can do, and the allocator's settings."""

import os

import pytest
import torch

import machine


def test_default_precision_is_the_study_s_on_cuda_and_bf16_only_where_it_pays_on_the_cpu(monkeypatch):
    for pays, expected in ((True, "bf16"), (False, "fp32")):
        monkeypatch.setattr(machine, "bf16_pays", lambda: pays)
        assert machine.default_precision(torch.device("cpu")) == expected
        assert machine.default_precision(torch.device("cuda")) == "fp16"  # whatever the CPU


def test_bf16_pays_only_where_the_cpu_has_it_and_its_products_beat_float32_s_by_the_margin(monkeypatch):
    """A CPU with AVX512-BF16 can still multiply bf16 slower than float32 (an Intel Xeon without
    AMX: 72 against 128 GFLOP/s); one without it is never measured (torch would emulate bf16)."""
    monkeypatch.delenv(machine.BF16_PAYS, raising=False)  # the suite's own answer, handed on by conftest
    measured = []
    def products(rate_of_bf16):
        return lambda dtype, repeats=5: measured.append(dtype) or (rate_of_bf16 if dtype == torch.bfloat16 else 1.0)
    for native, bf16_rate, expected in ((True, 1.8, True), (True, 0.56, False), (True, 1.1, False), (False, 9.0, False)):
        machine.bf16_pays.cache_clear()
        monkeypatch.setattr(machine, "multiplies_bf16", lambda: native)
        monkeypatch.setattr(machine, "products_per_second", products(bf16_rate))
        measured.clear()
        assert machine.bf16_pays() is expected, (native, bf16_rate)
        assert bool(measured) is native
    machine.bf16_pays.cache_clear()  # the next caller measures this CPU again


def test_a_cpu_multiplies_bf16_when_its_flags_say_so(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    line = "flags\t\t: fpu sse2 avx2 avx512f avx512bw {}\n"
    for flags, expected in (("avx512_bf16", True), ("amx_bf16 amx_tile", True), ("avx512_vnni", False)):
        cpuinfo.write_text("processor\t: 0\nmodel name\t: AMD EPYC\n" + line.format(flags))
        assert machine.multiplies_bf16(str(cpuinfo)) is expected, flags
    assert machine.multiplies_bf16(str(tmp_path / "missing")) is False  # not Linux: cannot tell, so no


def test_kept_memory_serves_the_next_word_gradients_without_page_faults():
    """After machine.keep_freed_memory, a freed 47 MB block (minilm's dense word-embedding gradient,
    freed at every step) is reused as it is. The first few of them still fault their pages in (7 to
    10 here, varying with the heap they start from: small allocations split the freed block until
    they settle elsewhere), so 30 come first; the next 20 then fault in at most one block's pages,
    where blocks mapped afresh, as glibc maps any block over 32 MB by default, fault in all
    20 x 11,500 (4 KiB each)."""
    resource = pytest.importorskip("resource")
    if not machine.keep_freed_memory():
        pytest.skip("not glibc: its allocator is left as it is")
    for _ in range(30):  # what a run's first steps do
        torch.zeros(30522, 384)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        torch.zeros(30522, 384)  # allocated, filled and freed
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before < 2 * 11_500


def test_an_answer_handed_on_is_taken_without_measuring(monkeypatch):
    def measured(dtype, repeats=5):
        raise AssertionError("measured, though handed an answer")
    monkeypatch.setattr(machine, "products_per_second", measured)
    monkeypatch.setattr(machine, "multiplies_bf16", lambda: True)
    for handed, pays in (("1", True), ("0", False)):
        machine.bf16_pays.cache_clear()
        monkeypatch.setenv(machine.BF16_PAYS, handed)
        assert machine.bf16_pays() is pays and machine.handed_on() == {machine.BF16_PAYS: handed}
    machine.bf16_pays.cache_clear()  # the next caller measures this CPU again


def test_a_cpu_that_emulates_bf16_never_takes_it_handed_on(monkeypatch):
    monkeypatch.setattr(machine, "multiplies_bf16", lambda: False)
    monkeypatch.setenv(machine.BF16_PAYS, "1")
    machine.bf16_pays.cache_clear()
    assert machine.bf16_pays() is False
    machine.bf16_pays.cache_clear()


def test_one_default_precision_is_handed_on_and_the_caller_s_environment_left_as_it_was(monkeypatch):
    # make advise's notebook call runs in the user's own process: what it hands its runs is taken back after
    answer = machine.handed_on()[machine.BF16_PAYS]
    for before in (None, "1" if answer == "0" else "0"):
        if before is None:
            monkeypatch.delenv(machine.BF16_PAYS, raising=False)
        else:
            monkeypatch.setenv(machine.BF16_PAYS, before)
        with machine.one_default_precision():
            assert os.environ[machine.BF16_PAYS] == answer  # every run: the search's own measure
        assert os.environ.get(machine.BF16_PAYS) == before


def test_a_device_is_checked_before_any_model_is_read(monkeypatch):
    """freeze_study.py's --device, predict.py's and predictions()'s: one line for a name torch does
    not know, or for CUDA where there is none (a traceback from .to() otherwise)."""
    assert machine.checked_device("cpu") == torch.device("cpu")
    with pytest.raises(ValueError, match="unknown --device 'gpu': use cpu, cuda or cuda:N"):
        machine.checked_device("gpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="--device cuda, but no CUDA GPU is available"):
        machine.checked_device("cuda:0")


def test_a_kept_model_predicts_in_its_run_s_precision_where_the_device_computes_it(monkeypatch):
    cpu = torch.device("cpu")
    monkeypatch.setattr(machine, "multiplies_bf16", lambda: True)
    assert [machine.scored_as_trained(p, cpu) for p in ("bf16", "fp32", "fp16", None)] == ["bf16", "fp32", "fp32", "fp32"]
    monkeypatch.setattr(machine, "multiplies_bf16", lambda: False)  # torch would emulate it, slowly
    assert machine.scored_as_trained("bf16", cpu) == "fp32"

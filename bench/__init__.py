"""
Benchmarks and comparisons with the peer libraries; bench/README.md maps them. Each script runs
from the project's top level as a module, so it imports the project's modules as a run does:

    python -m bench.compare_trainer --model minilm --sizes 200 --freeze 0
"""

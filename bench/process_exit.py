"""What a process's end costs once it has imported torch, and what machine.spare_imports_from_collection
saves of it: the seconds from a process's last line to its exit, as a parent waiting on it sees them.

    .venv/bin/python -m bench.process_exit --rounds 5

At exit the interpreter runs a full garbage collection, which walks every object torch's import made;
objects moved out of the collector's generations (gc.freeze) are not walked. The runs' processes
(freeze_study.py, study/worker.py's workers, predict.py) do it after their imports; the suite's
many short processes pay this end at each.
"""

import argparse
import statistics
import subprocess
import sys
import time

IMPORTS = {"torch": "import freeze_study", "torch and transformers": "import freeze_study, transformers.models.auto"}
SPARED = "import machine; machine.spare_imports_from_collection()"


def exit_seconds(imports, spared):
    """Seconds between a child's last printed line and its exit."""
    code = "; ".join([imports] + ([SPARED] if spared else []) + ["import time", "print(time.time(), flush=True)"])
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    printed = float(child.stdout.readline())
    child.wait()
    return time.time() - printed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    print("| imported | plain exit (s) | spared (s) |\n|---|---|---|")
    for name, imports in IMPORTS.items():
        seconds = {spared: [] for spared in (False, True)}
        for _ in range(args.rounds):  # interleaved, so that the machine's drift reaches both alike
            for spared in (False, True):
                seconds[spared].append(exit_seconds(imports, spared))
        print(f"| {name} | {statistics.median(seconds[False]):.3f} | {statistics.median(seconds[True]):.3f} |")


if __name__ == "__main__":
    main()

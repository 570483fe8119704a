"""study/progress.py: where a grid stands, and the time left from the runs done of each kind."""

import json

from study import progress


def test_time_left_takes_each_kind_of_run_at_its_own_pace(tmp_path):
    def run(name, seconds=None):
        path = tmp_path / name
        if seconds is not None:
            path.write_text(json.dumps({"seconds": {"total": seconds}}))
        return str(path)
    runs = [run("freeze0_size50_seed1.json", 60), run("freeze0_size50_seed2.json", 64), run("freeze6_size50_seed1.json", 8),
            run("freeze0_size50_seed3.json"), run("freeze6_size50_seed2.json"), run("freeze4_size50_seed1.json"),
            run("freeze0_size1000_seed1.json")]
    done, left, untimed = progress.time_left(runs)
    # k = 0: the median of 60 and 64; k = 6: 8; k = 4 and n = 1000 (none of their kind done): no guess
    assert done == 3 and left == 62 + 8 and untimed == 2
    assert progress.where_the_grid_stands(runs) == ("3 of 7 runs done, about 1 min left for the kinds timed, 2 left of a "
                                                   "depth and size not yet timed (no estimate until one of each has run)")
    assert progress.where_the_grid_stands(runs[:5]) == "3 of 5 runs done, about 1 min left"
    assert progress.where_the_grid_stands(runs[3:]) == "0 of 4 runs done, no estimate until one is"
    assert progress.duration(30) == "under a minute" and progress.duration(4000) == "1 h 07 min"
    assert progress.timing_kind("a/freeze0_sizeall_seed1_lr3e-5.json") == (0, "all", 0, "finetune")
    assert progress.timing_kind("freeze0_size100_seed2_reinit1_probe.json") == (0, 100, 1, "probe")

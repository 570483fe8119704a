"""
The study: what turns many runs of freeze_study.py into an answer. Every module reads a folder of
run results or schedules the runs that will fill it; one trains (batched.py: several rates of one
cell at once, which bench/batched_rates.py measures).

    grid.py        a grid's result names and each name's options, for make (result.py's grammar)
    folder.py      a folder of runs read: its runs, their devices, its cells, the report's table
    stats.py       the statistics reports print, and two cells' difference against seed noise
    progress.py    where a grid stands (after each run, make status), and make's job count
    lock.py        a folder's lock (make advise: one search a folder)
    published.py   the published figures set beside ours: the blog's grid, Lee et al.'s operating points
    report.py      the blog study's report: tables, findings, costs (make report)
    sections.py    the report's sections for reset tops, each other method and the probe beside the tabled cells
    answer.py      every method's cells side by side, read alike, and the study's one recommendation rule
    answer_text.py the report's answer in words: each size's table, recommendation, line searches, what did not run
    best.py        the recommended cell's options, for make best
    figures.py     its figures: figure.png, cost.png and answer.png
    lee_report.py  Lee et al.'s tables and Figure 1 (make report PROTOCOL=lee)
    slurm.py       the grid as a Slurm job array (make slurm); local_slurm.sh starts a one-node cluster
    worker.py      a grid's runs in a few long-lived processes (make grid -j N, make advise, Slurm tasks)
    batched.py     the rates of one cell trained at once over stacked weights
    advise.py      make advise: the grid's answer at one size without the grid (and which checkpoint), its Python call
    search.py      its loop: the runs the policy asks for, round by round, until decided or the budget is spent
    policy.py      its rounds: which runs come next (screen, refine, rates, in/out, best)
    standing.py    where a search stands: the cells, the best, the band, which cells are out or in, the answer now
    paired.py      two cells told apart on the same dev examples, and the pick's honest score (BBC)
    search_folder.py  a search's results folder: its runs (a folder a checkpoint), test runs and rounds
    advise_report.py  what a search ends with: advise.md, the pick kept, its score on your test file
    replay.py      the policy driven by a committed grid's runs instead of new ones
    prior.py       the zero-training step: LogME of every layer's frozen features, before anything trains
    migrate.py     run results of earlier versions brought to today's format, once

Run from the project's top level as modules (python -m study.report ...), as the Makefile does.
"""

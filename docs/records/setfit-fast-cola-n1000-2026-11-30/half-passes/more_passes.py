"""freeze_study with the fast body's share of the library's sentence passes set by SHARE (it is
contrastive.FAST_SHARE, 8) and no step cap (contrastive.MOST_STEPS, 400): how far CoLA at n = 1000
moves with more passes. Not a way in of the tool: the result records the settings it ran with, not
these two.

    SHARE=2 .venv/bin/python docs/records/setfit-fast-cola-n1000-2026-11-30/half-passes/more_passes.py \
        --dataset cola --glue-dir ../shared/glue --model minilm --method setfit-fast --freeze 0 \
        --size 1000 --seed S --num-iterations 20 --precision fp32 --evaluations last --out OUT
"""
import os
import sys

sys.path.insert(0, os.getcwd())
import contrastive  # noqa: E402

contrastive.FAST_SHARE = int(os.environ["SHARE"])
contrastive.MOST_STEPS = 10**6
import freeze_study  # noqa: E402

freeze_study.main()

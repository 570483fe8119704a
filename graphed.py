"""
A training step's forward and backward replayed as CUDA graphs (--cuda-graphs). On a GPU a run
is bound by what each step costs whatever its size: Python and a thousand kernel launches a step,
1% of the card's arithmetic (docs/gpu.md). A graph launches a whole pass's kernels at once.

    each batch                 its rows padded to a fixed grid: (B, T) with T its longest
                               sentence rounded up to a multiple of BUCKET, the padded layout
                               (rows.pack(skip_padding=False)), which computes what the packed
                               one computes (tests/test_model.py)
    a grid's first batch       torch.cuda.make_graphed_callables captures the trained part
                               (Trained: the embeddings when they train, the layers above the
                               cached prefix, the head) forward and backward at that shape
    every batch                its rows and mask copied into the grid's static inputs; the
                               forward graph replays, and loop's backward replays the backward one

Everything else of the step is loop.py's: the loss, GradScaler, clipping, AdamW.

What it changes is the dropout masks: drawn for the padded grid, and inside the graphs, so a graphed
run is the plain run with other masks (the same distribution, another draw), as a run on another
device is. With dropout off it computes the plain run's logits, gradients and losses
(tests/test_graphed.py, on CUDA); the blog's grid ran both ways on one card (docs/gpu.md).
"""

import gc

import torch
import torch.nn as nn

from machine import autocast
from rows import Layout, pack

BUCKET = 16  # a grid's length is a multiple of this: a few shapes a task, each captured once


class Trained(nn.Module):
    """The part of the model a step trains, as a function of one padded grid (B, T):
    (rows: token ids (B*T,) or (B*T, 2), or the cached prefix's states (B*T, H); is_token (B*T,))
    -> logits (B, num_labels). A module of its own for each grid, since capturing replaces its
    forward."""

    def __init__(self, model, cached_depth, grid, device):
        super().__init__()
        self.model, self.cached_depth, self.grid = model, cached_depth, grid
        B, T = grid
        self.cell = torch.arange(B * T, device=device)  # the padded layout: a row for every cell
        self.first = self.cell[::T]  # (B,) each sentence's first row

    def forward(self, rows, is_token):
        B, T = self.grid
        layout = Layout(self.cell, self.cell % T, is_token, self.first, is_token.view(B, 1, 1, T), self.grid)
        hidden = self.model.embed(rows, layout) if self.cached_depth is None else rows
        return self.model.classify(self.model.sentence_states(hidden, layout, self.cached_depth or 0))


class StepGraphs:
    """A run's graphs, one pair (forward, backward) per grid shape, captured at the shape's first
    batch into one memory pool (a step replays one shape's pair, forward then backward, so the
    shapes' temporaries can share it). Call it as loop.logits_for, in train mode, under autocast."""

    def __init__(self, model, cached_depth, device, precision):
        self.model, self.cached_depth, self.device, self.precision = model, cached_depth, device, precision
        self.pad_value = model.config.pad_token_id if cached_depth is None else 0.0
        self.graphed = {}  # (B, T) -> the graphed Trained
        self.pool = torch.cuda.graph_pool_handle()

    def __call__(self, sequences):
        """Logits (B, num_labels) for a training batch (as RunInputs holds its examples)."""
        T = -(-max(len(s) for s in sequences) // BUCKET) * BUCKET
        rows, layout = pack(sequences, skip_padding=False, pad_value=self.pad_value, grid_length=T)
        rows, is_token = rows.to(self.device), layout.is_token.to(self.device)
        # autocast's cache must be off while capturing (torch.cuda.make_graphed_callables)
        with autocast(self.device, self.precision, cache_enabled=False):
            if layout.grid not in self.graphed:
                self.graphed[layout.grid] = torch.cuda.make_graphed_callables(
                    Trained(self.model, self.cached_depth, layout.grid, self.device), (rows, is_token),
                    allow_unused_input=True, pool=self.pool)
            return self.graphed[layout.grid](rows, is_token)

    def release(self):
        """The graphs and their memory pool back to torch at the run's end (a worker runs the next
        run in the same process). A capture ties each graph to its module in a reference cycle,
        which only the collector frees."""
        self.graphed.clear()
        gc.collect()

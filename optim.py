"""
The optimizer step, written out: the warmup / linear-decay schedule, AdamW (torch's fused update,
on the used rows of the word embedding only), its decoupled weight decay rounded as each device
rounds it, and the one optimizer step every method takes (backward, clip, step).
"""

import torch
from torch.optim.adamw import adamw as adamw_update  # torch's functional AdamW


def lr_at(step, warmup_steps, total_steps, peak_lr):
    """Learning rate of optimizer step `step` (0-based): linear warmup from 0 over warmup_steps,
    then linear decay to 0 at total_steps. Step 0 runs at lr 0, as in transformers."""
    if step < warmup_steps:
        return peak_lr * step / max(1, warmup_steps)
    return peak_lr * max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))


class AdamW:
    """torch.optim.AdamW(fused=True), the Trainer's adamw_torch_fused: the same state and torch's
    own fused update (its functional form), so the same weights bit for bit (tests/test_loop.py).
    Written without torch's Optimizer class, whose first use imports torch's compiler; GradScaler
    drives it as any optimizer, through param_groups and step().

    used_rows: {parameter: row indices}, the only rows of that parameter whose gradient can be
    nonzero (the word embedding's rows of the tokens a training set uses). A row whose gradient has
    always been zero has zero moments, so AdamW moves it by weight decay alone: the fused update
    runs on the used rows only and the decay on the whole tensor, the same weights bit for bit."""

    def __init__(self, groups, lr, betas=(0.9, 0.999), eps=1e-8, used_rows=None):
        # groups: dicts of params and weight_decay, as torch's optimizers take them
        self.param_groups = [dict(params=list(group["params"]), weight_decay=group.get("weight_decay", 0.0), lr=lr)
                             for group in groups]
        self.betas, self.eps, self.used_rows = betas, eps, used_rows or {}
        self.state = {}  # parameter -> (step, exp_avg, exp_avg_sq), made at its first gradient

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            self.apply(params, [p.grad for p in params], group["lr"], group["weight_decay"])

    @torch.no_grad()
    def apply(self, params, grads, lr, weight_decay):
        """One step on params with these gradients: the fused update, on the used rows alone where
        a parameter has them (batched.py calls it with each rate's slices and gradients)."""
        whole = [(p, g) for p, g in zip(params, grads) if p not in self.used_rows]
        self.update([p for p, _ in whole], [g for _, g in whole], [p for p, _ in whole], lr, weight_decay)
        for p, g in zip(params, grads):
            if p in self.used_rows:
                rows = self.used_rows[p]
                if weight_decay:
                    decay(p, lr, weight_decay)
                view = p.index_select(0, rows)  # (R, H), a copy
                self.update([view], [g.index_select(0, rows)], [p], lr, 0.0)
                p.index_copy_(0, rows, view)

    def update(self, params, grads, keys, lr, weight_decay):
        """torch's fused AdamW step on params; the moments are kept under keys (the parameters)."""
        for p, key in zip(params, keys):
            if key not in self.state:  # a float32 step on the parameter's device, as fused AdamW keeps it
                self.state[key] = (torch.zeros((), dtype=torch.float32, device=p.device),
                                   torch.zeros_like(p, memory_format=torch.preserve_format),
                                   torch.zeros_like(p, memory_format=torch.preserve_format))
        steps, exp_avgs, exp_avg_sqs = ([self.state[key][i] for key in keys] for i in range(3))
        if params:
            adamw_update(params, grads, exp_avgs, exp_avg_sqs, [], steps, fused=True, amsgrad=False,
                         beta1=self.betas[0], beta2=self.betas[1], lr=lr, weight_decay=weight_decay, eps=self.eps,
                         maximize=False)


def decay(p, lr, weight_decay):
    """AdamW's decoupled decay, p *= 1 - lr * weight_decay, rounded as torch's fused update rounds
    it on p's device: on the CPU p * (1 - lr * weight_decay) in float32; on CUDA, as its kernel's
    `param -= lr * weight_decay * param` in float32 with one rounding (docs/gpu.md)."""
    if p.is_cuda:
        lr32, decay32 = torch.tensor([lr, weight_decay], dtype=torch.float32)
        rate = (lr32 * decay32).item()  # the kernel's lr x decay, rounded to float32
        wide = p.double()  # rate * p is exact in float64, so p - rate * p rounds as a float32 FMA does
        p.copy_(wide - rate * wide)
    else:
        p.mul_(1 - lr * weight_decay)


def used_word_rows(model, inputs, cached_depth):
    """AdamW's `used_rows` for a training set: {the word embedding: the rows of the token ids
    `inputs` hold}, when the word embedding trains on them; else {} (it is frozen, or the inputs
    are cached states). The pad token's row is in too: the padded layout looks it up."""
    word = model.embed.word.weight
    if cached_depth is not None or not word.requires_grad:
        return {}
    ids = torch.cat([x if x.dim() == 1 else x[:, 0] for x in inputs] + [torch.tensor([model.config.pad_token_id])])
    return {word: torch.unique(ids).to(word.device)}


def optimizer_step(loss, optimizer, scaler, params, max_grad_norm):
    """Backward, clip, step: the one optimizer step of every method. In fp16 the scaler scales the
    loss up (fp16 gradients can underflow), unscales before clipping and skips a step with an
    inf; elsewhere it is a no-op."""
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
    scaler.step(optimizer)
    scaler.update()


def state_bytes(optimizer):
    """The bytes AdamW keeps: its moments (for the used word rows only, where it updates those) and steps."""
    return sum(t.numel() * t.element_size() for state in optimizer.state.values() for t in state)

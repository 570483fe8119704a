"""
`freeze_study.py --method lora` against peft on the Trainer recipe (bench/peft_recipe.py, in its own
environment: see that file), interleaved, on the same checkpoint, data and subsets, several seeds,
one precision on both sides (fp32 unless --precision), at one rate:

    OMP_NUM_THREADS=1 python -m bench.compare_peft --glue-dir ../shared/glue --sizes 200 --freeze 0 3 \
        --seeds 1 2 3 4 5 --lr 5e-4 --library-python .venv-peft/bin/python --record bench/out/peft.jsonl

--cells, --keep, --tabulate and the table are bench/compare_setfit.py's: per cell both means, their
difference against twice its standard error, and the median wall times (each side a whole process,
start-up included; ours reads its frozen prefix from the cache after the first seed, as a grid's
runs do).
"""

from bench.compare_setfit import comparison_parser, interleave


def main():
    p = comparison_parser(".venv-peft/bin/python")
    p.add_argument("--lr", type=float, default=5e-4, help="both sides' rate (default: the LoRA paper's SST-2 rate)")
    p.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="fp32", help="both sides'")
    p.add_argument("--epochs", type=int, default=10, help="both sides' (fewer only to check the plumbing)")
    args = p.parse_args()
    both = ["--lr", str(args.lr), "--precision", args.precision, "--epochs", str(args.epochs)]
    interleave(args, library=["-m", "bench.peft_recipe"] + both, ours=["--method", "lora"] + both,
               method="lora", lr=args.lr)


if __name__ == "__main__":
    main()

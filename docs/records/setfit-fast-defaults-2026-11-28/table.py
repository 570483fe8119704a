"""The sweep's table: per folder, rate and share, the seeds' mean score, its standard error, the steps, the median train seconds."""
import json,glob,collections,statistics as st,sys,math,os
root=os.path.join(os.path.dirname(__file__), "runs")
for tag in sorted(glob.glob(root+"/*")):
    c=collections.defaultdict(list)
    for f in glob.glob(tag+"/seed*_share*.json"):  # the sweep's runs (bench.setfit_bodies reads the rows')
        r=json.load(open(f)); cf=r["config"]; share=f.split("share")[1].split(".")[0]
        c[(cf["lr"],share)].append((cf["seed"],r["score"],r["seconds"]["train"],r["total_steps"]))
    for k in sorted(c):  # (rate, share)
        v=c[k]; s=[x[1] for x in v]
        se=st.stdev(s)/math.sqrt(len(s)) if len(s)>1 else float('nan')
        print(tag.split("/")[-1], k, "seeds",sorted(x[0] for x in v), f"mean {st.mean(s):.4f} se {se:.4f} steps {v[0][3]} train_s {st.median(x[2] for x in v):.1f}")

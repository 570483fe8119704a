import random, os
random.seed(0)
words = "good bad fine dull great awful nice poor lovely boring".split()
def rows(n, labels=("pos","neg")):
    out=[]
    for i in range(n):
        l = random.choice(labels)
        out.append((" ".join(random.choice(words) for _ in range(6)) + f" {i}", l))
    return out
def write(name, rs, header="text,label", enc="utf-8", nl="\n", sep=","):
    with open(name, "w", encoding=enc, newline="") as f:
        f.write(header.replace(",", sep) + nl)
        for t, l in rs:
            t = '"' + t.replace('"','""') + '"' if (sep in t or "\n" in t or '"' in t) else t
            f.write(f"{t}{sep}{l}{nl}")
tr, dv = rows(40), rows(20)
write("train.csv", tr); write("dev.csv", dv)
write("bom_train.csv", tr, enc="utf-8-sig"); 
write("crlf_train.csv", tr, nl="\r\n")
write("quoted_train.csv", [(t.replace(" ", ", ", 1) + '\nsecond "line"', l) for t,l in tr])
write("space_train.csv", [(t, " " + l if i%3==0 else l) for i,(t,l) in enumerate(tr)])
write("case_train.csv", [(t, l.upper() if i%3==0 else l) for i,(t,l) in enumerate(tr)])
write("empty_train.csv", [("" if i==5 else t, l) for i,(t,l) in enumerate(tr)])
write("unseen_dev.csv", dv[:-1] + [(dv[-1][0], "neutral")])
write("labels_train.csv", tr, header="text,labels")
write("missing_train.csv", [(t, "" if i==3 else l) for i,(t,l) in enumerate(tr)])
write("latin1_train.csv", [(t + " café", l) for t,l in tr], enc="latin-1")
write("semi_train.csv", tr, sep=";")
write("header_train.csv", [])
write("dup_train.csv", tr + tr[:10])
write("long_train.csv", [(t + " word" * 2000, l) for t,l in tr])
write("onecls_train.csv", [(t, "pos") for t,l in tr])
write("labfirst_train.csv", [(l, t) for t,l in tr], header="label,text")
write("tab_train.tsv", tr, sep="\t")
write("int_train.csv", [(t, 3 if l=="pos" else 7) for t,l in tr]); write("int_dev.csv", [(t, 3 if l=="pos" else 7) for t,l in dv])
write("float_train.csv", [(t, 1.0 if l=="pos" else 0.0) for t,l in tr]); write("float_dev.csv", [(t, 1.0 if l=="pos" else 0.0) for t,l in dv])
write("blankline_train.csv", tr[:20] + [("", "")] + tr[20:])

"""SST-5 as a user with star ratings brings it: review,stars with 1..5 (very negative 1 ... very positive 5)."""
import csv
import sys

STARS = {"very negative": "1", "negative": "2", "neutral": "3", "positive": "4", "very positive": "5"}
source, out = sys.argv[1:3]
for split in ("train", "dev", "test"):
    with open(f"{source}/{split}.csv", newline="") as f, open(f"{out}/{split}.csv", "w", newline="") as g:
        rows = csv.reader(f)
        next(rows)
        writer = csv.writer(g)
        writer.writerow(["review", "stars"])
        writer.writerows([text, STARS[label]] for text, label in rows)

#!/bin/bash
# 2026-12-02 session 2: emotion from an empty folder with the final rule, CLINC150 at n = 750 and its
# defaults, then the search before the change (c506714) from empty folders on SST-5 and counterfactual
S=/work/shared/tasks
/tmp/q/run_search.sh /tmp/q/new /tmp/q/emotion-final $S/emotion 200 macro_f1
/tmp/q/run_search.sh /tmp/q/new /tmp/q/clinc-new $S/clinc150 750 accuracy
/tmp/q/baselines.sh /tmp/q/clinc-new $S/clinc150 750 accuracy > /tmp/q/clinc-new/baselines.txt 2>&1
/tmp/q/run_search.sh /tmp/q/old /tmp/q/sst5-old $S/sst5 200 macro_f1
/tmp/q/run_search.sh /tmp/q/old /tmp/q/counterfactual-old $S/counterfactual 200 macro_f1

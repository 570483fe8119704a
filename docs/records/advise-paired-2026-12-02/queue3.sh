#!/bin/bash
# after queue.sh's sst5 search: its baselines, counterfactual's search and baselines, emotion from an
# empty folder with the final code, then the searches before the change on sst5 and counterfactual
S=/work/main/../shared/tasks
until grep -q "^rc" /tmp/q/sst5-new/clock.txt 2>/dev/null; do sleep 10; done
/tmp/q/baselines.sh /tmp/q/sst5-new $S/sst5 200 macro_f1 > /tmp/q/sst5-new/baselines.txt 2>&1
/tmp/q/run_search.sh /tmp/q/new /tmp/q/counterfactual-new $S/counterfactual 200 macro_f1
/tmp/q/baselines.sh /tmp/q/counterfactual-new $S/counterfactual 200 macro_f1 > /tmp/q/counterfactual-new/baselines.txt 2>&1
/tmp/q/run_search.sh /tmp/q/new /tmp/q/emotion-r2 $S/emotion 200 macro_f1
/tmp/q/old_from.sh /tmp/q/sst5-new /tmp/q/sst5-old $S/sst5 200 macro_f1
/tmp/q/old_from.sh /tmp/q/counterfactual-new /tmp/q/counterfactual-old $S/counterfactual 200 macro_f1

#!/usr/bin/env bash
# A polyglot candidate (issue 51, item 2) judged per language, the shipped default beside it on Python:
#
#   bash training/judging/polyglot_judge.sh NAME CHECKPOINT [POLYGLOT_DATA ...]
#
# Exports CHECKPOINT (fast int8, `log_mean_rb`) to $OUT_ROOT/NAME (default training/work/polyglot/, git-ignored),
# scores it with `training.judging.evaluate --polyglot-data` (each row in its language, through the runtime),
# the default on Python's rows, then `training.judging.polyglot_judge` (GBM on the same tree-sitter counts,
# bootstrap over problems, the rule's verdict). POLYGLOT_DATA defaults to training/data/leetcode_{cpp,go,java}.
# The Python counts need `tree-sitter-python` (not a dependency: pip install it apart, put it on PYTHONPATH).
# It judges nothing: the rule is written in experiments/log/ before this runs.
set -eu
[ $# -ge 2 ] || { echo "usage: bash training/judging/polyglot_judge.sh NAME CHECKPOINT [POLYGLOT_DATA ...]" >&2; exit 2; }
NAME=$1; CKPT=$2; shift 2
POLY=("$@"); [ ${#POLY[@]} -gt 0 ] || POLY=(training/data/leetcode_cpp.jsonl.gz training/data/leetcode_go.jsonl.gz training/data/leetcode_java.jsonl.gz)
PY=${PYTHON:-.venv/bin/python}
OUT=${OUT_ROOT:-training/work/polyglot}/$NAME
W=$OUT.judge
mkdir -p "$W"
[ -e "$OUT/rlm_config.json" ] || "$PY" -m rlm_lsp.export "$CKPT" "$OUT" --metrics memory,latency \
    --point-estimate log_mean_rb --model-version "$NAME" > "$W/export.log" 2>&1
"$PY" -m training.judging.evaluate "$OUT" --data training/data/leetcode_v1.jsonl.gz --polyglot-data "${POLY[@]}" \
    --threads 1 --predictions "$W/candidate_pred.jsonl" --json "$W/candidate_eval.json" > "$W/evaluate.log" 2>&1
"$PY" -m training.judging.evaluate rlm_lsp/models/default --data training/data/leetcode_v1.jsonl.gz \
    --threads 1 --predictions "$W/default_pred.jsonl" --json "$W/default_eval.json" > "$W/evaluate_default.log" 2>&1
"$PY" -m training.judging.polyglot_judge "$W/candidate_pred.jsonl" --default "$W/default_pred.jsonl" \
    --polyglot-data "${POLY[@]}" --bootstrap 1000 --json "$W/judge.json"
echo "$OUT: $(du -sb "$OUT" | cut -f1) bytes"

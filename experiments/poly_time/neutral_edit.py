"""#63: how far a neutral edit (an unused local at the top of the entry's body) moves C++/Java/Go values,
against 2x and against the trees' own p10-p90 width (session 42).

    python experiments/poly_time/neutral_edit.py

Per language, 80 validation programs (shuffled, seed 0) through `rlm predict --jsonl`, each beside
itself with the local added: (pairs, moved >= 2x, moved past the width, the narrowest width).
"""
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import rlm_lsp  # noqa: E402,F401 - registers the readers
from training.learning import dataset, polyglot_data  # noqa: E402
from training.learning.poly_trees import DATA, entries  # noqa: E402

STMT = {"cpp": "int rlm_unused_ = 0; (void)rlm_unused_;", "java": "int rlmUnused = 0;", "go": "rlmUnused := 0\n_ = rlmUnused"}


def add_unused(code: str, lang: str) -> str | None:
    i = code.find("{", code.find("("))
    return None if i < 0 else code[:i + 1] + "\n" + STMT[lang] + "\n" + code[i + 1:]


def main() -> None:
    entry_of = entries()
    for lang in ("cpp", "java", "go"):
        ex = [e for e in polyglot_data.load_examples([str(ROOT / DATA[lang])]) if dataset.is_validation(e.problem_id)]
        random.Random(0).shuffle(ex)
        lines = []
        for e in ex[:80]:
            new = add_unused(e.code, lang)
            if new is None:
                continue
            for tag, c in (("a", e.code), ("b", new)):
                lines.append(json.dumps({"id": f"{e.key}|{tag}", "code": c, "language": lang,
                                         "entry": entry_of.get(e.problem_id, "")}))
        out = subprocess.run([str(ROOT / ".venv/bin/rlm"), "predict", "--jsonl", "-"], input="\n".join(lines) + "\n",
                             capture_output=True, text=True, check=True)
        got = {p["id"]: p for p in map(json.loads, filter(str.strip, out.stdout.splitlines()))}
        keys = {i.rsplit("|", 1)[0] for i in got}
        res = {}
        for m in ("memory", "latency"):
            moved = []
            for k in keys:
                a, b = (got.get(k + "|a") or {}).get(m), (got.get(k + "|b") or {}).get(m)
                if a and b and a.get("value") and b.get("value"):
                    moved.append((max(b["value"] / a["value"], a["value"] / b["value"]), max(2.0, b["high"] / b["low"])))
            res[m] = (len(moved), sum(x >= 2 for x, _ in moved), sum(x >= w for x, w in moved),
                      round(min(w for _, w in moved), 1))
        print(lang, res)


if __name__ == "__main__":
    main()

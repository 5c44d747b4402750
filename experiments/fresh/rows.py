"""growth-fresh: real functions of other public Python repositories, measured with growth-dev's
protocol, to judge growth predictors on code no one has looked at (session 39).

    python experiments/fresh/rows.py build CAND.jsonl ROWS.jsonl   # add each candidate's code text
    python experiments/fresh/rows.py try ROWS.jsonl [ID ...] [--largest]  # make(n) + calls at the 2 smallest sizes
    python experiments/fresh/rows.py measure ROWS.jsonl OUT.jsonl   # growth-dev's protocol at every size (resumable)

A candidate row: {"id", "repo", "gitdir", "commit", "path", "function", "n_meaning", "make",
"mutates", "copy", "sizes"}; the code text (the function and the same-file items it needs,
verbatim) is added by growth-dev's `rebuild.extract_src` and never committed. What is committed:
the ids, generators, sizes and measurements (experiments/fresh/measured.jsonl).
"""
import json
import subprocess
import sys
from pathlib import Path

TOOLS = Path("/work/shared/growth-dev/tools")
sys.path.insert(0, str(TOOLS))


def build(cand: str, out: str) -> None:
    from rebuild import extract_src
    rows, errors = [], 0
    for r in map(json.loads, filter(str.strip, open(cand))):
        src = subprocess.run(["git", "--git-dir", r["gitdir"], "show", f"{r['commit']}:{r['path']}"],
                             capture_output=True, text=True, check=True).stdout
        try:
            code, helpers = extract_src(src, r["function"])
            compile(code, r["id"], "exec")
        except Exception as exc:  # noqa: BLE001
            print(f"{r['id']}: cannot extract: {exc}")
            errors += 1
            continue
        rows.append({**r, "helpers": helpers, "code": code})
    Path(out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{len(rows)} rows, {errors} not extracted")


def try_rows(path: str, ids: list[str]) -> None:
    """`--largest`: the largest size instead (its call should take well under 1.5 s)."""
    import tempfile

    from measure import run_size
    largest = "--largest" in ids
    ids = [i for i in ids if i != "--largest"]
    for r in map(json.loads, filter(str.strip, open(path))):
        if ids and r["id"] not in ids:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(r, fh)
        out = [run_size(fh.name, n) for n in (r["sizes"][-1:] if largest else r["sizes"][:2])]
        Path(fh.name).unlink()
        bad = [d for d in out if "error" in d]
        print(f"{r['id']}: " + (f"ERROR {bad[0]['error']}" if bad else
                                " ".join(f"n={d['n']} mem={d['mem_peak']} t={min(d['times']) * 1e6:.1f}us" for d in out)))


def measure(path: str, out: str) -> None:
    import platform
    import time

    from measure import measure_row, summarize
    done = {json.loads(x)["id"] for x in open(out)} if Path(out).exists() else set()
    rows = [r for r in map(json.loads, filter(str.strip, open(path))) if r["id"] not in done]
    with open(out, "a") as fh:
        for k, r in enumerate(rows, 1):
            t0 = time.time()
            sized = measure_row(r)
            ok = [d for d in sized if "error" not in d]
            # a size that failed (timeout, recursion) ends the ladder, as growth-dev's ladder stops did
            s = summarize(r, ok if len(ok) >= 5 else sized)
            if len(ok) < len(sized) and len(ok) >= 5:
                s["ladder_stop"] = [d for d in sized if "error" in d][0]["error"]
            s.update(machine=platform.node(), python=platform.python_version(), measured_at=time.strftime("%Y-%m-%dT%H:%M:%S"))
            fh.write(json.dumps(s) + "\n")
            fh.flush()
            print(f"[{k}/{len(rows)}] {r['id']} {time.time() - t0:.1f}s time {s.get('time_exponent')} "
                  f"memory {s.get('memory_exponent')} {s.get('error', '')}", flush=True)


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    {"build": lambda: build(*args), "try": lambda: try_rows(args[0], args[1:]),
     "measure": lambda: measure(*args)}[cmd]()

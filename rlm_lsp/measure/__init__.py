"""`rlm measure`: run functions at growing sizes in a sandbox and fit how their time and memory grow.

    inputs.py   a plan per function: its inputs by parameter kind, or the user's generator
    uses.py     how a function uses a parameter (bisected, unpacked in rows, changed, ...), for inputs.py
    permutations.py  a list whose elements are positions (a permutation kind), for inputs.py
    makers.py   the inputs at size n (standard library only: it also runs inside the sandbox)
    child.py    one function at one n, inside the sandbox: tracemalloc peak, CPU time
    sandbox.py  bubblewrap around child.py, with its limits
    run.py      the ladder of sizes within a budget, and the fit (rlm_lsp.runtime.curve_fit); several
                functions on one ladder (the gate's two versions), and the gate's class-rise rule
    report.py   the table, sparklines and the PNG plot
    store.py    measured curves kept in .rlm/measured.jsonl, by code hash, for `rlm predict`

The command is `rlm_lsp.app.cli_measure`, and `rlm gate --measure` is `rlm_lsp.gate.measured`;
docs/measuring.md says what runs, where and for how long.
"""

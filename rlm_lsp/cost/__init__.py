"""The cost analyzer: how a function's time and memory grow with its sized inputs, read from its text.

    source -> a language's front end (Python: `rlm_lsp.python.cost_front`, ast)
           -> the loop-and-call form (`form`: loops with trip counts, work, stores, calls)
           -> `analyze`: one pass over the form, callees' summaries reused, recursion solved
           -> `Summary`: time and memory as costs over the sized parameters (`algebra.Cost`,
              e.g. `n·m`, `n log n`), the lines that carry each leading term, and how sure

Static and deterministic, a few milliseconds a function, no model. The runtime reads it as a
model's growth (`rlm_lsp.runtime.cost_growth`), so `rlm predict`, the editor and the gate show it.
"""

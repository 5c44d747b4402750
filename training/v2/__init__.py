"""Data v2, script shapes: the pieces behind ``python -m training.measure_v2``.

``sources``  reads the second corpus set (Kattis packages, Project Euler, Rosetta Code) into tasks,
             one per (program, input), without writing any corpus text anywhere but a temporary folder.
``execute``  measures one task in the sandbox (``training.sandbox.run_child``) and returns its row.
"""

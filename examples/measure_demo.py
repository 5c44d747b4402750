"""Three growths for `rlm measure examples/measure_demo.py` (docs/measuring.md): linear, quadratic, n log n."""


def running_sum(xs):
    total = 0
    for x in xs:
        total += x
    return total


def count_pairs(xs):
    pairs = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] < xs[j]:
                pairs += 1
    return pairs


def sorted_copy(xs):
    return sorted(xs)

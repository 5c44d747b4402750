import sys


def stream_total(path):
    total = 0
    with open(path) as fh:
        for line in fh:
            total += int(line)
    return total


def table_total(path):
    with open(path) as fh:
        rows = [int(line) for line in fh]
    prefix = [[0] * (len(rows) + 1) for _ in rows]
    return sum(rows)


class Graph:
    def shortest(self, edges, n, src):
        dist = [float("inf")] * n
        dist[src] = 0
        for _ in range(n - 1):
            for u, v, w in edges:
                if dist[u] + w < dist[v]:
                    dist[v] = dist[u] + w
        return dist

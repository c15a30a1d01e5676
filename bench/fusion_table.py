"""The rows of tools/fusion-bench.sh's table: from one `gputune search --json` of
bench/engine/stencil_chain.yaml, the best config of each `fuse` value and each one's speed-up
over the best unfused config (fuse=0) of the same search.

    python3 bench/fusion_table.py SEARCH.json SIZE
"""
import json
import sys


def main(path, size):
    report = json.load(open(path))
    best = {}
    for row in report["results"]:
        fuse = row["config"].get("fuse", 0)
        if fuse not in best or row["median_ms"] < best[fuse]["median_ms"]:
            best[fuse] = row
    if 0 not in best:
        print(f"{size} x {size}: no unfused config measured correct", file=sys.stderr)
        return 1
    device = report["device"]["name"]
    print(f"{device}, {size} x {size}, {len(report['results'])} configs correct, "
          f"{len(report.get('failed', []))} failed:")
    print()
    print("| fuse | best config | median ms | over the best unfused |")
    print("|---|---|---|---|")
    for fuse in sorted(best):
        row = best[fuse]
        config = " ".join(f"{k}={v}" for k, v in row["config"].items())
        print(f"| {fuse} | {config} | {row['median_ms']:.4f} | "
              f"{best[0]['median_ms'] / row['median_ms']:.3f}x |")
    print()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))

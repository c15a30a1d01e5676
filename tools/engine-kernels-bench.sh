#!/usr/bin/env bash
# Issue 26's measurements, on the GPU machine: the naive kernels of bench/engine/ (matrix
# multiply, n-body, transpose, tiled transpose, matrix-vector product, 2-D convolution, 5-point
# stencil), each tuned by the transformation engine's knobs alone (gputune_bench, the targets of
# bench/engine/targets.yaml), the best against the naive kernel (the spec's baseline) and against
# the reference of the same run (copy bandwidth, cuBLAS SGEMM). Appends a section to
# bench/RESULTS.md (GPU, driver, date, commit) and leaves in $OUT (or the work folder it prints)
# the same section (with each kernel's ablation table, bench/engine_ablation.py), the database,
# each winner's source as the engine rewrote it and what
# `gputune transforms` says of each spec.
#   source tools/device-env.sh && tools/engine-kernels-bench.sh    # after tools/device-bundle.sh
#   ONLY="matmul nbody" tools/engine-kernels-bench.sh             # some of them (one call each
#                                                                  # fits the device's 10 minutes)
# On an H100: matmul about 3 minutes, nbody 2, each of the others under 1.
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bin="${BUILD_DIR:-build}"
bench="$bin/gputune_bench"  # device-env.sh links it there; tools/build.sh puts it in bench/
[ -x "$bench" ] || bench="$bin/bench/gputune_bench"
work="${OUT:-$(mktemp -d)}"
mkdir -p "$work"
db="$work/engine-kernels.db"
commit=$(cat .device/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
names="${ONLY:-matmul nbody transpose tiled_transpose matvec conv2d stencil complex_abs}"
echo "work folder: $work"
section="$work/RESULTS-engine-kernels.md"
{
  echo
  echo "## $(date -u '+%Y-%m-%d %H:%M UTC') naive kernels tuned by the engine's knobs alone (issue 26)"
  echo
  echo "\`tools/engine-kernels-bench.sh\` (ONLY=\"$names\"), commit $commit: each spec of"
  echo "bench/engine/ searched whole (brute force); its baseline is the naive kernel as written."
} >"$section"

for name in $names; do
  spec="bench/engine/$name.yaml"
  echo "== $name"
  "$bin/gputune" transforms "$spec" >"$work/$name.transforms.txt" 2>&1 ||
    echo "   (gputune transforms failed: $work/$name.transforms.txt)"
  "$bench" --targets bench/engine/targets.yaml --only "$spec" --db "$db" \
    --results "$section" --commit "$commit" 2>"$work/$name.err" | tail -n +2
  tail -2 "$work/$name.err" | sed 's/^/   /'
  "$bin/gputune" source "$spec" --best --db "$db" >"$work/$name.best.cu" 2>"$work/$name.best.err" ||
    echo "   (no winner's source: $work/$name.best.err)"
done

# Issue 29's ablation: each knob turned back (or on) around each kernel's best.
"$bin/gputune" export --db "$db" --out "$work/recordings" >/dev/null 2>"$work/export.err" &&
  {
    echo
    echo "What each knob is worth around the best variant (\`bench/engine_ablation.py\` on the"
    echo "searches above; a ratio is the changed variant's time over the best's):"
    echo
    python3 bench/engine_ablation.py "$work"/recordings/*.csv
  } >>"$section" || echo "   (no ablation: $work/export.err)"

cat "$section" >>bench/RESULTS.md
echo "appended to bench/RESULTS.md (and in $section)"

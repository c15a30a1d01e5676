#!/usr/bin/env bash
# Stages what the GPU machine needs to build and test the Python bindings into .pybundle: the
# core as a static library built here (that machine lacks the yaml-cpp/SQLite headers), the
# shared libraries it may lack, and the headers, Python sources, specs and kernels of one
# commit (the working tree may hold others' half-written changes). Carry .pybundle with the
# device tool and run tools/python-device-tests.sh there.
#   CORE=<path to libgputune_core.a built from REV> REV=<commit> tools/python-device-bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${REV:-HEAD}"
core="${CORE:?CORE=path of libgputune_core.a built from $rev}"
rm -rf .pybundle
mkdir -p .pybundle/lib
git archive "$rev" include python spaces kernels tools/python-device-tests.sh | tar -x -C .pybundle
cp "$core" .pybundle/libgputune_core.a
for lib in libyaml-cpp.so.0.7 libsqlite3.so.0 libmuparser.so.2; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')" .pybundle/lib/
done
grep -qx '/.pybundle/' .git/info/exclude || echo '/.pybundle/' >> .git/info/exclude
du -sh .pybundle >&2

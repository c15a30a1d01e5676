#!/usr/bin/env bash
# Fetches the published suites' T1 tuning-problem files, with their kernels, into
# bench/t1_suites/suites/ (git-ignored; not copied into this repository, whose rule is that other
# projects' code is read, not copied): BAT's benchmarks (NTNU-HPC-Lab/BAT, MIT licence) and KTT's
# CUDA examples (HiPerCoRe/KTT, MIT licence), each at the commit bench/RESULTS.md's table was made
# from. Needs the network, or T1_SUITES_MIRROR: a folder of bare clones named OWNER+NAME/repo.
# The GPU machine has no network: fetch here, then carry bench/t1_suites/suites with the run.
set -euo pipefail
cd "$(dirname "$0")"
dest=suites
rm -rf "$dest"
mkdir -p "$dest"

# fetch OWNER/NAME COMMIT FOLDER...: the folders' files at COMMIT under suites/NAME/.
fetch() {
  local repo=$1 commit=$2
  shift 2
  local git_dir
  if [ -n "${T1_SUITES_MIRROR:-}" ] && [ -d "$T1_SUITES_MIRROR/${repo/\//+}/repo" ]; then
    git_dir="$T1_SUITES_MIRROR/${repo/\//+}/repo"
  else
    git_dir="$(mktemp -d)"
    git clone --quiet --bare --filter=blob:none "https://github.com/$repo" "$git_dir"
  fi
  local out="$dest/${repo#*/}"
  mkdir -p "$out"
  # File by file: a snapshot may lack a blob (a large data file); that file is left out, named.
  git -C "$git_dir" ls-tree -r --name-only "$commit" -- "$@" | while read -r path; do
    mkdir -p "$out/$(dirname "$path")"
    git -C "$git_dir" show "$commit:$path" > "$out/$path" 2>/dev/null ||
      { rm -f "$out/$path"; echo "fetch.sh: $repo lacks $path at $commit (left out)" >&2; }
  done
  echo "$repo $commit" >> "$dest/SOURCES"
}

fetch NTNU-HPC-Lab/BAT 06e0be2412e174a32323ecd8054f33fd188540e3 batbench/benchmarks LICENSE.md
fetch HiPerCoRe/KTT 931c41570df4ae279a2fb1d422be781728b39bed \
  Examples/CoulombSum2d Examples/CoulombSum3d Examples/JSON Examples/Nbody \
  Tutorials/03KernelTuning License.txt
echo "fetch.sh: $(find "$dest" -name '*.json' | wc -l) JSON files in bench/t1_suites/$dest" >&2

#!/usr/bin/env bash
# On the GPU machine, after tools/device-bundle.sh (carry .device): a T1 file whose input is a
# dataset of an HDF5 file (BinaryHDF), searched by the bundle's gputune and checked against a
# reference output, so that the HDF5 reader and the libraries the bundle staged beside it are
# seen working there. The image's python3 writes the files (numpy, h5py). Exits non-zero unless
# the reader finds every library and every variant is correct.
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/device-env.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ldd .device/bin/libgputune_hdf5.so | grep 'not found'; then exit 1; fi
python3 - "$work" <<'EOF' || exit 1
import json, sys
import h5py
import numpy as np
work = sys.argv[1]
x = (np.arange(4096) % 13 * 0.25).astype(np.float32)
with h5py.File(f"{work}/x.h5", "w") as f:
    f["x"] = x
(2 * x).tofile(f"{work}/expected.bin")
with open(f"{work}/scale.cu", "w") as f:
    f.write('extern "C" __global__ void scale(float* out, const float* x, int n) {\n'
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) out[i] = 2.0f * x[i];\n}\n")
vector = {"Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector"}
spec = {
    "ConfigurationSpace": {"TuningParameters": [
        {"Name": "block_size_x", "Values": "[64, 128, 256]", "Default": 64}]},
    "KernelSpecification": {
        "Language": "CUDA", "KernelName": "scale", "KernelFile": "scale.cu",
        "ProblemSize": [4096], "GridDivX": ["block_size_x"], "LocalSize": {"X": "block_size_x"},
        "Arguments": [
            dict(vector, Name="out", AccessType="WriteOnly"),
            dict(vector, Name="x", AccessType="ReadOnly", FillType="BinaryHDF", DataSource="x.h5"),
            {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": "ProblemSize[0]"}],
        "ReferenceArguments": [
            {"Name": "out", "FillType": "BinaryRaw", "DataSource": "expected.bin"}]}}
with open(f"{work}/scale.json", "w") as f:
    json.dump(spec, f)
EOF
.device/bin/gputune search "$work/scale.json" --db "$work/results.db" --strategy brute_force \
  --json -q "$@" >"$work/search.json" || exit 1
python3 - "$work/search.json" <<'EOF'
import json, sys
search = json.load(open(sys.argv[1]))
statuses = [row["status"] for key in ("results", "failed") for row in search[key]]
print("BinaryHDF fill, variants by status:", statuses)
sys.exit(0 if statuses and all(status == "ok" for status in statuses) else 1)
EOF

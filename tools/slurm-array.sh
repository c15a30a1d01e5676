#!/usr/bin/env bash
# A Slurm job array that tunes a campaign: each array task runs one shard of `gputune plan` into
# a database on the node's local disk and copies it to the shared folder when done; `gputune
# merge` then joins the shards (docs/cluster.md). A task that failed or was lost is simply
# submitted again (sbatch --array=5 tools/slurm-array.sh), and merged again.
#
#   sbatch --array=0-7 tools/slurm-array.sh          # 8 shards: keep SHARDS below in step
#   gputune merge results.db shards/shard-*.db        # after the array, on any node
#
#SBATCH --job-name=gputune
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=16
#SBATCH --time=02:00:00
#SBATCH --output=gputune-%A_%a.log
set -euo pipefail

SHARDS="${SLURM_ARRAY_TASK_COUNT:-8}"
K="${SLURM_ARRAY_TASK_ID:?run me with sbatch --array=0-$((SHARDS - 1))}"
SPECS=(transpose stencil)              # spec files or shipped names
SWEEP=(--sweep n=1024,2048,4096,8192)  # problem sizes; remove for one space split by index
SHARED="${GPUTUNE_SHARED:-$SLURM_SUBMIT_DIR/shards}"  # on the shared file system
LOCAL="${TMPDIR:-/tmp}/gputune-$SLURM_JOB_ID-$K"      # on the node's own disk

# SQLite on NFS or Lustre with several writers corrupts databases: each shard writes its own
# file on local disk and only the finished file goes to the shared folder.
mkdir -p "$LOCAL" "$SHARED"
cd "$LOCAL"
gputune plan "${SPECS[@]}" "${SWEEP[@]}" --shards "$SHARDS" --db "shard-{K}.db" \
  --search-options "--devices all --quiet" --commands "$K" > commands.sh
bash -e commands.sh
cp "shard-$K.db" "$SHARED/shard-$K.db.part"
mv "$SHARED/shard-$K.db.part" "$SHARED/shard-$K.db"  # whole files only: merge never sees half

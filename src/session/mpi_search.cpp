#include "session/mpi_search.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "cluster/launcher.h"
#include "cluster/mpi_world.h"
#include "cluster/rank_server.h"
#include "cluster/remote_runner.h"
#include "cluster/tcp.h"
#include "gputune/error.h"
#include "process/compile_pool.h"
#include "process/ipc.h"
#include "replay/replay.h"
#include "search/async_adapters.h"
#include "session/problem_info.h"
#include "session/search_parts.h"
#include "session/writable_store.h"

namespace gputune {
namespace {

using namespace search_parts;

// How long rank 0 waits for the other ranks to call in, and they for it to listen.
constexpr double kRankStartSeconds = 300;

// One measuring rank's work: this host's GPUs (or the replay) for rank 0, until it is done.
int measure_for_root(const SearchRequest& request, int fd, int rank) {
  try {
    if (!request.replay.empty()) {
      Replay replay = open_replay(request);
      std::unique_ptr<Runner> runner = std::move(replay.runner);
      if (request.replay_real_time) runner = pace_like_recorded(std::move(runner));
      auto compiler = make_replay_compiler();
      SerialCompiles compiles(*compiler);
      BatchRuns gpu(*runner, 1);  // a replay rank stands for one GPU
      return serve_rank(fd, rank, *replay.problem, compiles, gpu);
    }
    Problem problem(requested_spec(request));
    const size_t usable = usable_cpus(), host = std::max(1u, std::thread::hardware_concurrency());
    const std::optional<LocalRank> local = local_rank_from_environment();
    SearchRequest rank_request = request;
    if (rank_request.jobs == 0) rank_request.jobs = rank_compile_jobs(usable, host, local);
    auto compiles = make_compile_pool(rank_request);
    auto gpu = make_process_runner(problem, device_ordinals(request), timing_options(request),
                                   *compiles, watchdog_options(request));
    return serve_rank(fd, rank, problem, *compiles, *gpu);
  } catch (const Error& e) {
    std::cerr << "gputune: rank " << rank << ": " << e.what() << "\n";
    ipc::write_frame(fd, kRankFailed, e.what());
    return 1;
  }
}

// Said by the first rank of each host (rank 0's measuring worker shares its host and binding):
// the CPUs its compiler processes may use, where mpirun bound it to fewer than the host has.
void warn_of_bound_cpus(int rank, std::vector<std::string>* warnings) {
  const size_t usable = usable_cpus(), host = std::max(1u, std::thread::hardware_concurrency());
  const std::optional<LocalRank> local = local_rank_from_environment();
  if (usable >= host || (local && local->rank != 0)) return;
  warnings->push_back("rank " + std::to_string(rank) + " may use only " + std::to_string(usable) +
                      " of its host's " + std::to_string(host) +
                      " CPUs (mpirun binds each rank to a core unless given --bind-to none), and "
                      "its compiler processes share them; start mpirun with --bind-to none to "
                      "compile on the whole host");
}

// The ranks by device model, in the order they said hello: each model is a workload.
std::vector<std::vector<RankPeer>> by_device(std::vector<RankPeer> peers) {
  std::vector<std::vector<RankPeer>> groups;
  for (RankPeer& peer : peers) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const std::vector<RankPeer>& g) {
      return g.front().hello.device.key() == peer.hello.device.key();
    });
    if (it == groups.end()) {
      groups.push_back({std::move(peer)});
    } else {
      it->push_back(std::move(peer));
    }
  }
  return groups;
}

SearchOutcome search_as_root(const SearchRequest& request, const MpiWorld& world, int listener,
                             const std::string& token, const ProgressCallback& progress,
                             const std::atomic<bool>* stop) {
  std::vector<std::string> warnings;
  if (request.replay.empty()) warn_of_bound_cpus(0, &warnings);
  if (world.size > 1 && recovery_of_this_rank() == Recovery::kOff) {
    warnings.push_back(
        "mpirun runs without --enable-recovery, so Open MPI ends the whole job if one rank "
        "dies; start it as mpirun --enable-recovery -n " +
        std::to_string(world.size) + " ... to lose only that rank's variants");
  }
  // Rank 0 measures too, in a worker process of its own, as any other rank does.
  ipc::Child local = ipc::spawn([&request](int fd) { return measure_for_root(request, fd, 0); });
  std::vector<RankPeer> peers =
      gather_ranks(listener, {local.fd}, world.size - 1, kRankStartSeconds, token, &warnings);
  close(listener);
  std::vector<RankHello> hellos;
  for (const RankPeer& peer : peers) hellos.push_back(peer.hello);
  for (const std::string& line : gpus_shared_by_ranks(hellos)) {
    warnings.push_back(line +
                       "; give each rank GPUs of its own, such as --devices local (one share of "
                       "the host's GPUs per rank)");
  }

  SearchOptions options = search_options(request);
  std::unique_ptr<Problem> problem;
  if (!request.replay.empty()) {
    problem = std::move(open_replay(request).problem);
  } else {
    problem = std::make_unique<Problem>(requested_spec(request));
  }
  const std::string db = request.db.value_or(request.replay.empty() ? "gputune.db" : ":memory:");
  auto store = open_writable_store(db, &warnings);
  // The ranks compile; rank 0's compiler only hands each config on.
  auto compiler = make_replay_compiler();

  SearchOutcome outcome;
  std::vector<RankPeer> done;
  bool first = true;
  for (std::vector<RankPeer>& group : by_device(std::move(peers))) {
    const std::string device = group.front().hello.device.name;
    const size_t ranks = group.size();
    RemoteRunner runner(std::move(group));
    // As many configs in flight as the ranks take: each compiles ahead of its GPUs as one
    // process would. The strategy is asked for `batch` at a time, as in one process.
    if (options.pipeline == 0) options.pipeline = runner.idle();
    // Ranks are not profiled: the bottleneck strategy runs as the model strategy here.
    auto profiler = make_recorded_profiler(problem->spec(), {});
    SearchOutcome result = search_and_report(*problem, runner, *compiler, *store, options,
                                             *profiler, false, progress, stop);
    for (RankPeer& peer : runner.release()) done.push_back(std::move(peer));
    for (std::string& warning : runner.take_warnings()) warnings.push_back(std::move(warning));
    if (first) {
      outcome = std::move(result);
      first = false;
    } else {
      warnings.push_back("also searched on " + std::to_string(ranks) + " ranks with " + device +
                         ": " + std::to_string(result.evaluated.size()) +
                         " evaluated (gputune show --db " + db + ")");
    }
    if (stop && *stop) break;
  }
  dismiss_ranks(done);
  ipc::end_child(&local, 10);
  outcome.db = request.db.value_or("");
  if (request.replay.empty()) outcome.db = db;
  outcome.problem = problem_info_of(*problem);
  outcome.spec = problem->spec();
  outcome.warnings = with_spec_warnings(outcome.spec, std::move(warnings));
  return outcome;
}

}  // namespace

SearchOutcome mpi_search(const SearchRequest& request, const ProgressCallback& progress,
                         const std::atomic<bool>* stop) {
  if (request.compile_only) {
    throw Error(ErrorCode::kUsage,
                "--mpi measures on the ranks' GPUs; --compile-only needs "
                "no GPU and no MPI: leave out --mpi");
  }
  if (!request.shard.empty()) {
    throw Error(ErrorCode::kUsage,
                "--mpi and --shard: give one search either several ranks "
                "(--mpi) or a part of the space (--shard), not both");
  }
  search_options(request);  // misused options fail on every rank before any rank waits
  const MpiWorld world = mpi_start();
  // Rank 0's address and the job's token go to the ranks through MPI, never the network: a
  // connection must prove it knows the token (cluster/rank_link.h).
  std::string shared;
  int listener = -1;
  if (world.rank == 0) {
    const std::optional<LocalRank> local = local_rank_from_environment();
    std::string address;
    listener = tcp_listen(listen_host(local && local->size == world.size), &address);
    shared = address + " " + make_job_token();
  }
  shared = mpi_share_from_root(shared);
  const size_t space = shared.find(' ');
  const std::string address = shared.substr(0, space);
  const std::string token = space == std::string::npos ? "" : shared.substr(space + 1);
  if (world.rank != 0) {
    const int fd = tcp_connect(address, kRankStartSeconds);
    if (!join_root(fd, token, static_cast<int>(kRankStartSeconds * 1000))) {
      close(fd);
      mpi_finish();
      throw Error(ErrorCode::kIo, "--mpi: rank " + std::to_string(world.rank) + ": " + address +
                                      " did not prove it is this job's rank 0");
    }
    SearchOutcome outcome;
    outcome.measuring_rank = true;
    if (request.replay.empty()) warn_of_bound_cpus(world.rank, &outcome.warnings);
    measure_for_root(request, fd, world.rank);
    close(fd);
    mpi_finish();
    return outcome;
  }
  SearchOutcome outcome = search_as_root(request, world, listener, token, progress, stop);
  std::atexit([] { mpi_finish(); });  // after the report is printed: finalize may not return
  return outcome;
}

}  // namespace gputune

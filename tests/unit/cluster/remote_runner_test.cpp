// An MPI search's bookkeeping, without mpirun: measuring ranks served on socket pairs by
// threads of this process, each over stand-in GPUs, and rank 0's search over RemoteRunner.
#include "cluster/remote_runner.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "cluster/rank_server.h"
#include "replay/replay.h"
#include "search/async_adapters.h"
#include "search/search.h"
#include "spec/spec_loader.h"
#include "support/fakes.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// FakeRunner's timings, with the GPU time each variant's launches took.
class BusyRunner : public testing::FakeRunner {
 public:
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    std::vector<Measurement> out = FakeRunner::run(batch);
    for (Measurement& m : out) m.gpu_busy_ms = 0.5;
    return out;
  }
};

// A rank's GPUs as a ProcessRunner reports them: `gpus` of them, timing live, and workers
// replaced `restarts` times.
class FakeGpus : public BatchRuns {
 public:
  FakeGpus(Runner& runner, size_t gpus, int64_t restarts)
      : BatchRuns(runner, gpus), gpus_(gpus), restarts_(restarts) {}
  std::vector<DeviceInfo> devices() const override {
    std::vector<DeviceInfo> out(gpus_, device());
    for (size_t i = 0; i < out.size(); ++i) out[i].uuid = "GPU-" + std::to_string(i);
    return out;
  }
  bool times_gpus() const override { return true; }
  WorkerStats stats() const override {
    WorkerStats s;
    s.restarts = restarts_;
    return s;
  }

 private:
  size_t gpus_;
  int64_t restarts_;
};

class RemoteSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_remote_runner_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
    problem_ = std::make_unique<Problem>(parse_spec(R"(kernel: {source: k.cu, name: k}
problem: {n: 64}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [A * 32], grid: [ceil(n / (A * 32))]}
parameters: {A: [1, 2, 3, 4], B: [0, 1, 2]}
baseline: {A: 1, B: 0}
)",
                                                    (dir_ / "spec.yaml").string()));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A measuring rank on one end of a socket pair, served by a thread; returns rank 0's end.
  int start_rank(int rank, size_t gpus, int64_t restarts) {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    ranks_.emplace_back([this, fd = fds[1], rank, gpus, restarts] {
      BusyRunner runner;
      testing::FakeCompiler compiler;
      SerialCompiles compiles(compiler);
      FakeGpus measuring(runner, gpus, restarts);
      serve_rank(fd, rank, *problem_, compiles, measuring);
      close(fd);
    });
    return fds[0];
  }

  void join() {
    for (std::thread& t : ranks_) t.join();
  }

  fs::path dir_;
  std::unique_ptr<Problem> problem_;
  std::vector<std::thread> ranks_;
};

TEST_F(RemoteSearch, RecordsTheRanksGpusTheirIdleShareAndRestarts) {
  const int a = start_rank(0, 2, 1), b = start_rank(1, 3, 2);
  std::vector<std::string> warnings;
  RemoteRunner runner(gather_ranks(-1, {a, b}, 0, 10, "", &warnings));
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(runner.devices().size(), 5u);
  EXPECT_TRUE(runner.times_gpus());
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  const SearchResult result = run_search(*problem_, runner, *compiler, *store, {});
  std::vector<RankPeer> peers = runner.release();
  dismiss_ranks(peers);
  join();

  EXPECT_EQ(result.evaluated.size(), 12u);
  const SearchRecord& record = result.record;
  EXPECT_EQ(record.gpus, 5);
  EXPECT_EQ(record.worker_restarts, 3);
  EXPECT_GE(record.measuring_s, 0);
  EXPECT_NEAR(record.gpu_busy_s, 11 * 0.5e-3, 1e-9);  // the variants; the baseline ran before
  EXPECT_FALSE(std::isnan(record.gpu_idle_share()));
}

TEST_F(RemoteSearch, ReplayRanksTimeNoGpu) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  ranks_.emplace_back([this, fd = fds[1]] {
    testing::FakeRunner runner;
    testing::FakeCompiler compiler;
    SerialCompiles compiles(compiler);
    BatchRuns replay(runner, 1);  // what a replay rank measures with
    serve_rank(fd, 1, *problem_, compiles, replay);
    close(fd);
  });
  std::vector<std::string> warnings;
  RemoteRunner runner(gather_ranks(-1, {fds[0]}, 0, 10, "", &warnings));
  EXPECT_EQ(runner.devices().size(), 1u);
  EXPECT_FALSE(runner.times_gpus());
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  const SearchResult result = run_search(*problem_, runner, *compiler, *store, {});
  std::vector<RankPeer> peers = runner.release();
  dismiss_ranks(peers);
  join();
  EXPECT_EQ(result.record.gpus, 1);
  EXPECT_TRUE(std::isnan(result.record.measuring_s));
  EXPECT_TRUE(std::isnan(result.record.gpu_idle_share()));
}

}  // namespace
}  // namespace gputune

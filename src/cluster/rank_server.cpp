#include "cluster/rank_server.h"

#include <unistd.h>

#include <deque>
#include <map>
#include <utility>

#include "cluster/rank_link.h"
#include "compile/compiler_log.h"
#include "core/wire.h"
#include "gputune/error.h"
#include "process/ipc.h"
#include "search/async_adapters.h"
#include "search/compile_outcome.h"
#include "search/evaluation_pipeline.h"
#include "search/search.h"

namespace gputune {
namespace {

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

class RankServer {
 public:
  RankServer(int fd, const Problem& problem, CompileService& compiles, AsyncRunner& gpu)
      : fd_(fd), problem_(problem), compiles_(compiles), gpu_(gpu), arch_(gpu.device().arch()) {}

  int run(int rank) {
    const size_t slots = gpu_.devices().size();
    RankHello hello;
    hello.rank = rank;
    hello.host = host_name();
    hello.device = gpu_.device();
    hello.slots = static_cast<uint32_t>(std::max<size_t>(slots, 1));
    hello.depth = static_cast<uint32_t>(pipeline_depth(0, 1, true, compiles_.parallelism(), slots));
    if (gpu_.times_gpus()) {
      for (const DeviceInfo& device : gpu_.devices()) hello.gpus.push_back(device.uuid);
    }
    if (!ipc::write_frame(fd_, kRankHello, hello_payload(hello))) return 1;
    for (;;) {
      const bool working = !compiling_.empty() || !ready_.empty() || gpu_.busy() > 0;
      if (!ipc::readable({fd_}, working ? 2 : -1).empty()) {
        uint32_t type = 0;
        std::string payload;
        if (!read_rank_frame(fd_, &type, &payload, kRankFrameRestMs)) return 0;  // rank 0 is gone
        if (type == kRankDone) return 0;
        if (!handle(type, payload)) return 1;
      }
      for (auto& [ticket, kernel] : compiles_.poll(0)) compiled(ticket, std::move(kernel));
      start_ready();
      for (auto& [ticket, m] : gpu_.poll(0)) {
        auto it = measuring_.find(ticket);
        if (it == measuring_.end()) continue;
        m.compiler_warnings = std::move(it->second.second);
        if (!send_measured(it->second.first, m)) return 1;
        measuring_.erase(it);
      }
    }
  }

 private:
  struct Work {
    uint64_t ticket;
    Variant variant;
    RaceLimit race;  // rank 0's best so far: racing cuts against the whole search's best
  };

  bool handle(uint32_t type, const std::string& payload) {
    try {
      switch (type) {
        case kRankSetReference:
          return set_reference();
        case kRankBandwidth: {
          wire::Writer w;
          w.f64(gpu_.measure_copy_bandwidth());
          return ipc::write_frame(fd_, kRankBandwidthIs, w.take());
        }
        case kRankMeasure: {
          wire::Reader r(payload);
          const uint64_t ticket = r.u64(), index = r.u64();
          RaceLimit race;
          race.cut_above_ms = r.f64();
          race.min_samples = static_cast<int>(r.i64());
          Variant variant = problem_.variant(index);
          const uint64_t compile = compiles_.submit(compile_request(problem_, variant, arch_));
          compiling_.emplace(compile, Work{ticket, std::move(variant), race});
          return true;
        }
        default:
          throw Error(ErrorCode::kInternal, "unexpected frame " + std::to_string(type));
      }
    } catch (const Error& e) {
      ipc::write_frame(fd_, kRankFailed, e.what());
      return false;
    }
  }

  bool set_reference() {
    Variant variant = problem_.variant(problem_.baseline_index());
    CompiledKernel kernel = compile_now(compiles_, compile_request(problem_, variant, arch_));
    account(kernel);
    if (!kernel.ok) {
      throw Error(ErrorCode::kSpec,
                  "the baseline does not compile: " + first_error_line(kernel.log));
    }
    std::string warnings = compiler_warnings(kernel.log);
    Measurement m = gpu_.set_reference({std::move(variant), std::move(kernel), RaceLimit{}});
    m.compiler_warnings = std::move(warnings);
    wire::Writer w;
    wire::put(w, m);
    return ipc::write_frame(fd_, kRankReference, w.take());
  }

  void compiled(uint64_t compile, CompiledKernel kernel) {
    auto it = compiling_.find(compile);
    if (it == compiling_.end()) return;
    Work work = std::move(it->second);
    compiling_.erase(it);
    account(kernel);
    if (!kernel.ok) {
      send_measured(work.ticket, compile_failure(work.variant, kernel));
      return;
    }
    ready_.push_back({work.ticket, {std::move(work.variant), std::move(kernel), work.race}});
  }

  // Rank 0 sends up to twice as many configs as there are GPUs, so that compiling runs ahead;
  // compiled ones wait here for a GPU.
  void start_ready() {
    while (!ready_.empty() && gpu_.idle() > 0) {
      auto [ticket, candidate] = std::move(ready_.front());
      ready_.pop_front();
      std::string warnings = compiler_warnings(candidate.kernel.log);
      const uint64_t run = gpu_.submit(std::move(candidate));
      measuring_.emplace(run, std::make_pair(ticket, std::move(warnings)));
    }
  }

  void account(const CompiledKernel& kernel) {
    if (!kernel.cached) compile_s_ += kernel.compile_ms / 1e3;
  }

  bool send_measured(uint64_t ticket, const Measurement& m) {
    wire::Writer w;
    w.u64(ticket);
    wire::put(w, m);
    WorkerStats stats = gpu_.stats();
    stats.compile_jobs = static_cast<int64_t>(compiles_.parallelism());
    stats.compile_s = compile_s_;
    put_worker_stats(w, stats);
    return ipc::write_frame(fd_, kRankMeasured, w.take());
  }

  int fd_;
  const Problem& problem_;
  CompileService& compiles_;
  double compile_s_ = 0;  // compiling, module cache hits not counted
  AsyncRunner& gpu_;
  std::string arch_;
  std::deque<std::pair<uint64_t, Candidate>> ready_;
  std::map<uint64_t, Work> compiling_;                              // compile ticket
  std::map<uint64_t, std::pair<uint64_t, std::string>> measuring_;  // run ticket -> ticket
};

}  // namespace

int serve_rank(int fd, int rank, const Problem& problem, CompileService& compiles,
               AsyncRunner& gpu) {
  return RankServer(fd, problem, compiles, gpu).run(rank);
}

}  // namespace gputune

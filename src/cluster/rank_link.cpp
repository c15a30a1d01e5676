#include "cluster/rank_link.h"

#include <map>

#include "core/wire.h"

namespace gputune {

std::string hello_payload(const RankHello& hello) {
  wire::Writer w;
  w.u32(static_cast<uint32_t>(hello.rank)).str(hello.host);
  wire::put(w, hello.device);
  w.u32(hello.slots).u32(hello.depth);
  w.u32(static_cast<uint32_t>(hello.gpus.size()));
  for (const std::string& uuid : hello.gpus) w.str(uuid);
  return w.take();
}

RankHello read_hello(const std::string& payload) {
  wire::Reader r(payload);
  RankHello hello;
  hello.rank = static_cast<int>(r.u32());
  hello.host = r.str();
  wire::get(r, &hello.device);
  hello.slots = r.u32();
  hello.depth = r.u32();
  hello.gpus.resize(r.u32());
  for (std::string& uuid : hello.gpus) uuid = r.str();
  return hello;
}

std::vector<std::string> gpus_shared_by_ranks(const std::vector<RankHello>& hellos) {
  std::map<std::string, std::vector<const RankHello*>> by_gpu;
  std::vector<std::string> order;
  for (const RankHello& hello : hellos) {
    for (const std::string& uuid : hello.gpus) {
      if (uuid.empty()) continue;
      auto& ranks = by_gpu[uuid];
      if (ranks.empty()) order.push_back(uuid);
      ranks.push_back(&hello);
    }
  }
  std::vector<std::string> lines;
  for (const std::string& uuid : order) {
    const auto& ranks = by_gpu[uuid];
    if (ranks.size() < 2) continue;
    std::string names;
    for (const RankHello* hello : ranks) {
      names += (names.empty()           ? "ranks "
                : ranks.back() == hello ? " and "
                                        : ", ") +
               std::to_string(hello->rank);
    }
    lines.push_back(names + (ranks.size() == 2 ? " both" : " all") + " measure on " +
                    ranks.front()->host + "'s GPU " + uuid + " (" + ranks.front()->device.name +
                    "), so their timings disturb each other");
  }
  return lines;
}

void put_worker_stats(wire::Writer& w, const WorkerStats& stats) {
  w.i64(stats.restarts).i64(stats.timeouts).i64(stats.crashes);
}

WorkerStats get_worker_stats(wire::Reader& r) {
  WorkerStats stats;
  stats.restarts = r.i64();
  stats.timeouts = r.i64();
  stats.crashes = r.i64();
  return stats;
}

}  // namespace gputune

#pragma once
// What rank 0 and the measuring ranks say to each other: frames of process/ipc.h over TCP (or
// a socket pair to rank 0's own worker), payloads in the wire format.
#include <cstdint>
#include <string>
#include <vector>

#include "core/wire.h"
#include "gputune/device.h"
#include "run/async_runner.h"

namespace gputune {

enum RankFrame : uint32_t {
  kRankHello = 1,     // rank -> 0: rank, host, device, slots, depth, GPU UUIDs
  kRankSetReference,  // 0 -> rank: compile and run the baseline
  kRankReference,     // rank -> 0: the baseline's measurement
  kRankMeasure,       // 0 -> rank: ticket, config index, race limit
  kRankMeasured,      // rank -> 0: ticket, measurement, the rank's WorkerStats so far
  kRankBandwidth,     // 0 -> rank: measure the copy bandwidth
  kRankBandwidthIs,   // rank -> 0: GB/s
  kRankFailed,        // rank -> 0: an error message; the rank stops
  kRankDone,          // 0 -> rank: the search is over
};

struct RankHello {
  int rank = 0;
  std::string host;
  DeviceInfo device;
  uint32_t slots = 1;
  // Configs it takes in flight, compiling ahead of its GPUs: what one process's pipeline keeps
  // in flight with the rank's compile workers and GPUs.
  uint32_t depth = 0;
  std::vector<std::string> gpus;  // the UUIDs of the GPUs it measures on; none in replay
};

std::string hello_payload(const RankHello& hello);
RankHello read_hello(const std::string& payload);

void put_worker_stats(wire::Writer& w, const WorkerStats& stats);
WorkerStats get_worker_stats(wire::Reader& r);

// One line for each GPU that more than one rank measures on, naming the ranks and the host:
// their timings would disturb each other.
std::vector<std::string> gpus_shared_by_ranks(const std::vector<RankHello>& hellos);

}  // namespace gputune

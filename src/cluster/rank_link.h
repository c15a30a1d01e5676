#pragma once
// What rank 0 and the measuring ranks say to each other: frames of process/ipc.h over TCP (or
// a socket pair to rank 0's own worker), payloads in the wire format. A connection counts only
// after it proves it belongs to the job: rank 0 makes a random token, MPI hands it to every
// rank (never the network), and each side answers the other's random challenge with an
// HMAC-SHA-256 of it under the token, so a host that connects first, or one that saw an
// earlier exchange, takes no rank's place.
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
  kRankChallenge,     // 0 -> rank: a random challenge
  kRankProof,         // rank -> 0: its answer to the challenge, and a challenge of its own
  kRankWelcome,       // 0 -> rank: rank 0's answer to the rank's challenge
};

// Frames larger than this are a broken or hostile stream: no rank frame holds a module.
constexpr uint32_t kMaxRankFrame = 64u << 20;
// How long a connection may take to prove it belongs to the job, and a frame begun to arrive.
constexpr int kRankHandshakeMs = 10000;
constexpr int kRankFrameRestMs = 60000;

// One frame, waiting at most `first_ms` for it to begin (< 0: as long as it takes) and
// kRankFrameRestMs for the rest; false when the peer is gone, slow, or sends a frame larger
// than kMaxRankFrame. Nothing is allocated for a frame before its bytes arrive.
bool read_rank_frame(int fd, uint32_t* type, std::string* payload, int first_ms);

// 32 random bytes as 64 hex digits.
std::string make_job_token();
// Rank 0's side of the handshake on a new connection: true when the peer proved within
// `handshake_ms` that it knows `token`.
bool admit_rank(int fd, const std::string& token, int handshake_ms = kRankHandshakeMs);
// A rank's side: true when the peer (rank 0) proved that it knows `token` too.
bool join_root(int fd, const std::string& token, int first_ms);

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
// Throws Error(kInternal) for a malformed hello.
RankHello read_hello(const std::string& payload);

void put_worker_stats(wire::Writer& w, const WorkerStats& stats);
WorkerStats get_worker_stats(wire::Reader& r);

// One line for each GPU that more than one rank measures on, naming the ranks and the host:
// their timings would disturb each other.
std::vector<std::string> gpus_shared_by_ranks(const std::vector<RankHello>& hellos);

}  // namespace gputune

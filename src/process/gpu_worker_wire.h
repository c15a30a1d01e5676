#pragma once
// What the driver (process_runner) and a GPU worker (gpu_worker) say to each other: frames of
// process/ipc.h on the worker's socket, payloads in the wire format (core/wire.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/wire.h"
#include "gputune/error.h"
#include "gputune/progress.h"
#include "run/range_profiler.h"
#include "run/runner.h"

namespace gputune::gpu_wire {

// Frame types between the driver and a GPU worker.
enum Frame : uint32_t {
  kHello = 1,      // worker: its DeviceInfo, once the runner is up
  kFatal = 2,      // worker: an Error; it exits
  kReference = 3,  // driver: a candidate to set as the reference
  kRun = 4,        // driver: a candidate to measure
  kResult = 5,     // worker: a Measurement
  kBandwidth = 6,  // driver: measure the copy bandwidth
  kBandwidthResult = 7,
  kPhase = 8,     // worker: the SearchPhase it enters
  kOutput = 9,    // worker, before a kResult: a piece of a checked run's output (host check)
  kProfile = 10,  // driver: a candidate and the metrics to collect of it
  kProfileResult = 11,
};

// An output larger than a frame goes in pieces.
constexpr size_t kOutputPieceBytes = size_t{256} << 20;

void put_candidate(wire::Writer& w, const Candidate& c);
// Sends a kFatal frame; returns the worker's exit code.
int send_fatal(int fd, const Error& e);
// Each output as kOutput frames: [u64 output][u64 its size][u64 offset][bytes].
bool send_outputs(int fd, const std::vector<std::vector<unsigned char>>& outputs);
// Adds a kOutput frame's piece to `outputs`.
void receive_output(const std::string& payload, std::vector<std::vector<unsigned char>>* outputs);
bool send_phase(int fd, SearchPhase phase);

// A frame as the worker reads it, with the candidate of a kRun, kReference or kProfile decoded.
struct WorkerFrame {
  uint32_t type = 0;
  Candidate candidate;
  std::vector<RangeMetric> metrics;  // of a kProfile
};
// False when the socket closed. Throws Error for a frame it cannot decode.
bool read_worker_frame(int fd, WorkerFrame* frame);

void put_metrics(wire::Writer& w, const std::vector<RangeMetric>& metrics);
void put_counters(wire::Writer& w, const RangeCounters& counters);
RangeCounters get_counters(wire::Reader& r);

}  // namespace gputune::gpu_wire

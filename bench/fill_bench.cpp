// How long filling a large random input takes on this host: the runner's host_fill (parallel,
// counter-based), the first-touch allocation included. Issue 12's target: 800M float32 in at
// most 2 s on the GPU machine. Usage: gputune_fill_bench [elements] [threads]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "run/host_buffers.h"

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 800'000'000ull;
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 0;
  gputune::ArgumentSpec argument;
  argument.name = "in";
  argument.fill = gputune::Fill::kRandom;
  argument.seed = 1;
  argument.fill_low = -1;
  argument.fill_high = 1;
  const auto start = Clock::now();
  const auto bytes = gputune::host_fill(argument, gputune::ScalarType::kFloat32, count, threads);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("%llu float32 (%.2f GB) on %u threads: %.3f s, %.2f GB/s; first byte %u\n",
              static_cast<unsigned long long>(count), bytes.size() / 1e9,
              threads ? threads : std::thread::hardware_concurrency(), seconds,
              bytes.size() / 1e9 / seconds, static_cast<unsigned>(bytes[0]));
  return seconds <= 2.0 ? 0 : 1;
}

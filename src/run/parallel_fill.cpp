#include "run/parallel_fill.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gputune {
namespace {

constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;
// Below this many elements a thread costs more than it saves.
constexpr uint64_t kElementsPerThread = uint64_t{1} << 20;

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t random_bits(uint64_t seed, uint64_t index) { return mix(seed + (index + 1) * kGamma); }

double random_unit(uint64_t seed, uint64_t index) {
  return static_cast<double>(random_bits(seed, index) >> 11) * 0x1.0p-53;
}

void parallel_ranges(uint64_t count, unsigned threads,
                     const std::function<void(uint64_t begin, uint64_t end)>& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const uint64_t useful = std::max<uint64_t>(1, count / kElementsPerThread);
  const unsigned n = static_cast<unsigned>(std::min<uint64_t>(threads, useful));
  if (n <= 1) {
    if (count > 0) body(0, count);
    return;
  }
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::vector<std::thread> pool;
  pool.reserve(n);
  for (unsigned t = 0; t < n; ++t) {
    const uint64_t begin = count * t / n, end = count * (t + 1) / n;
    pool.emplace_back([&, begin, end] {
      try {
        body(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    });
  }
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace gputune

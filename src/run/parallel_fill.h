#pragma once
// Input filling fast enough for GPU-sized buffers (800M elements): a counter-based generator, so
// that element i depends on (seed, i) alone, and a parallel loop over element ranges. Any split
// of the work gives the same bytes.
#include <cstdint>
#include <functional>

namespace gputune {

// Element `index` of the SplitMix64 stream that starts from `seed`: 64 well-mixed bits.
uint64_t random_bits(uint64_t seed, uint64_t index);
// The same element as a double uniform in [0, 1), from its 53 high bits.
double random_unit(uint64_t seed, uint64_t index);

// Runs body(begin, end) over disjoint ranges covering [0, count), on up to `threads` threads
// (0: one per hardware thread); small counts run on the calling thread. The first exception a
// body throws is rethrown once every thread has finished.
void parallel_ranges(uint64_t count, unsigned threads,
                     const std::function<void(uint64_t begin, uint64_t end)>& body);

}  // namespace gputune

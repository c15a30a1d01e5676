#pragma once
// Input filling fast enough for GPU-sized buffers (800M elements): a counter-based generator, so
// that element i depends on (seed, i) alone, and a parallel loop over element ranges. Any split
// of the work gives the same bytes.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace gputune {

// Leaves new elements uninitialised, so that a large buffer's pages are first touched by the
// threads that fill it rather than zeroed by one thread beforehand (most of the time at 3 GB).
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// An input's bytes as filled on the host.
using InputBytes = std::vector<unsigned char, DefaultInitAllocator<unsigned char>>;

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

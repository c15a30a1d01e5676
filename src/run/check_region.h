#pragma once
// The box of an output that a check compares, at fixed problem values.
#include <array>
#include <cstdint>
#include <string>

#include "core/config_codec.h"
#include "gputune/spec.h"

namespace gputune {

// A row-major array of shape[0] x shape[1] x shape[2] elements (fewer dimensions lead with 1s)
// and, per dimension, the half-open range [begin, end) that is compared.
struct CheckRegion {
  std::array<uint64_t, 3> shape{1, 1, 0}, begin{0, 0, 0}, end{1, 1, 0};
  int dimensions = 1;  // as the spec wrote them, for messages

  static CheckRegion whole(uint64_t count);
  uint64_t size() const;  // elements compared
  bool is_whole() const;
  // The buffer index of the i-th compared element, 0 <= i < size(), in row-major order.
  uint64_t element(uint64_t i) const;
  // "[3, 5]" (the spec's dimensions) for buffer index `index`.
  std::string coordinates(uint64_t index) const;
};

// The output's region at these problem values: the whole buffer without one. Throws
// Error(kSpec) at the region's location when a bound is not an integer, a range leaves the
// shape or is reversed, or the shape's product is not `count`.
CheckRegion resolve_check_region(const ArgumentSpec& output, uint64_t count,
                                 const ProblemValues& values);

}  // namespace gputune

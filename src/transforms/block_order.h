#pragma once
#include <cstdint>
#include <string>
#include <utility>

namespace gputune {

// The `block_order` transform: a bijection over the (x, y) blocks of a 2-D grid, applied by
// redefining blockIdx, so any kernel gets it without edits. Orders: row (identity), column,
// diagonal, swizzleN (N in 2..64: groups of N block rows, column-major within a group).
bool is_block_order(const std::string& order);

// CUDA source, compilable by NVRTC without includes, to place before the kernel. Empty for row.
// Throws Error(kSpec) for an unknown order.
std::string block_order_prelude(const std::string& order);

// The block (x, y) that launch block (bx, by) of a gx-by-gy grid becomes; the prelude computes
// the same. Throws Error(kSpec) for an unknown order.
std::pair<uint32_t, uint32_t> remap_block(const std::string& order, uint32_t bx, uint32_t by,
                                          uint32_t gx, uint32_t gy);

}  // namespace gputune

#include "transforms/block_order.h"

#include <algorithm>

#include "gputune/error.h"

namespace gputune {
namespace {

enum class Order { kRow, kColumn, kDiagonal, kSwizzle };

constexpr uint32_t kMinSwizzle = 2, kMaxSwizzle = 64;

bool parse_order(const std::string& text, Order* order, uint32_t* group) {
  *group = 0;
  if (text == "row") {
    *order = Order::kRow;
  } else if (text == "column") {
    *order = Order::kColumn;
  } else if (text == "diagonal") {
    *order = Order::kDiagonal;
  } else if (text.rfind("swizzle", 0) == 0 && text.size() > 7 && text.size() <= 9) {
    const std::string digits = text.substr(7);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        digits[0] == '0') {
      return false;
    }
    *group = static_cast<uint32_t>(std::stoul(digits));
    if (*group < kMinSwizzle || *group > kMaxSwizzle) return false;
    *order = Order::kSwizzle;
  } else {
    return false;
  }
  return true;
}

Order parse_or_throw(const std::string& text, uint32_t* group) {
  Order order;
  if (!parse_order(text, &order, group)) {
    throw Error(ErrorCode::kSpec, "unknown block order '" + text +
                                      "'; expected row, column, diagonal or swizzleN with N in " +
                                      std::to_string(kMinSwizzle) + ".." +
                                      std::to_string(kMaxSwizzle));
  }
  return order;
}

}  // namespace

bool is_block_order(const std::string& order) {
  Order parsed;
  uint32_t group;
  return parse_order(order, &parsed, &group);
}

std::pair<uint32_t, uint32_t> remap_block(const std::string& order, uint32_t bx, uint32_t by,
                                          uint32_t gx, uint32_t gy) {
  uint32_t n;
  const Order parsed = parse_or_throw(order, &n);
  const uint32_t id = bx + by * gx;
  switch (parsed) {
    case Order::kRow:
      return {bx, by};
    case Order::kColumn:
      return {id / gy, id % gy};
    case Order::kDiagonal: {
      const uint32_t y = id % gy;
      return {(id / gy + y) % gx, y};
    }
    case Order::kSwizzle: {
      const uint32_t group = n * gx;
      const uint32_t first_row = id / group * n;
      const uint32_t rows = gy - first_row < n ? gy - first_row : n;
      const uint32_t in_group = id % group;
      return {in_group / rows, first_row + in_group % rows};
    }
  }
  return {bx, by};
}

std::string block_order_prelude(const std::string& order) {
  uint32_t n;
  const Order parsed = parse_or_throw(order, &n);
  if (parsed == Order::kRow) return "";
  std::string remap;
  switch (parsed) {
    case Order::kRow:
      break;
    case Order::kColumn:
      remap =
          "  r.x = id / gy;\n"
          "  r.y = id % gy;\n";
      break;
    case Order::kDiagonal:
      remap =
          "  r.y = id % gy;\n"
          "  r.x = (id / gy + r.y) % gx;\n";
      break;
    case Order::kSwizzle:
      remap = "  const unsigned int n = " + std::to_string(n) +
              "u;\n"
              "  const unsigned int group = n * gx;\n"
              "  const unsigned int first_row = id / group * n;\n"
              "  const unsigned int rows = gy - first_row < n ? gy - first_row : n;\n"
              "  const unsigned int in_group = id % group;\n"
              "  r.x = in_group / rows;\n"
              "  r.y = first_row + in_group % rows;\n";
      break;
  }
  // The hardware registers are read directly because blockIdx itself is redefined below.
  return "// gputune block order: " + order +
         "\n"
         "__device__ __forceinline__ uint3 gputune_block_idx() {\n"
         "  unsigned int bx, by, bz, gx, gy;\n"
         "  asm(\"mov.u32 %0, %%ctaid.x;\" : \"=r\"(bx));\n"
         "  asm(\"mov.u32 %0, %%ctaid.y;\" : \"=r\"(by));\n"
         "  asm(\"mov.u32 %0, %%ctaid.z;\" : \"=r\"(bz));\n"
         "  asm(\"mov.u32 %0, %%nctaid.x;\" : \"=r\"(gx));\n"
         "  asm(\"mov.u32 %0, %%nctaid.y;\" : \"=r\"(gy));\n"
         "  const unsigned int id = bx + by * gx;\n"
         "  uint3 r;\n" +
         remap +
         "  r.z = bz;\n"
         "  return r;\n"
         "}\n"
         "#define blockIdx (gputune_block_idx())\n";
}

}  // namespace gputune

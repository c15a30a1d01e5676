#include "transforms/block_order.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "gputune/error.h"

namespace gputune {
namespace {

const std::vector<std::string> kOrders = {"row",      "column",   "diagonal", "swizzle2",
                                          "swizzle3", "swizzle4", "swizzle8", "swizzle64"};
const std::vector<std::pair<uint32_t, uint32_t>> kGrids = {
    {7, 5}, {5, 7}, {1, 9}, {9, 1}, {16, 16}, {1, 1}, {3, 10}, {13, 17}, {64, 3}};

TEST(BlockOrder, EveryOrderIsABijectionOnRaggedGrids) {
  for (const auto& order : kOrders) {
    for (auto [gx, gy] : kGrids) {
      std::set<std::pair<uint32_t, uint32_t>> seen;
      for (uint32_t by = 0; by < gy; ++by) {
        for (uint32_t bx = 0; bx < gx; ++bx) {
          auto [x, y] = remap_block(order, bx, by, gx, gy);
          EXPECT_LT(x, gx) << order << " " << gx << "x" << gy;
          EXPECT_LT(y, gy) << order << " " << gx << "x" << gy;
          seen.insert({x, y});
        }
      }
      EXPECT_EQ(seen.size(), size_t{gx} * gy) << order << " on " << gx << "x" << gy;
    }
  }
}

TEST(BlockOrder, RowIsIdentityWithEmptyPrelude) {
  EXPECT_EQ(remap_block("row", 3, 2, 7, 5), std::make_pair(3u, 2u));
  EXPECT_EQ(block_order_prelude("row"), "");
}

TEST(BlockOrder, ColumnWalksDownColumnsFirst) {
  // Launch order 0, 1, 2, ... visits (0,0), (0,1), (0,2), (1,0), ... on a 2x3 grid.
  EXPECT_EQ(remap_block("column", 0, 0, 2, 3), std::make_pair(0u, 0u));
  EXPECT_EQ(remap_block("column", 1, 0, 2, 3), std::make_pair(0u, 1u));
  EXPECT_EQ(remap_block("column", 0, 1, 2, 3), std::make_pair(0u, 2u));
  EXPECT_EQ(remap_block("column", 1, 1, 2, 3), std::make_pair(1u, 0u));
}

TEST(BlockOrder, DiagonalOnSquareGridIsTheClassicShift) {
  // On a square grid the Ruetsch/Micikevicius form is by' = bx, bx' = (bx + by) % g.
  for (uint32_t by = 0; by < 4; ++by) {
    for (uint32_t bx = 0; bx < 4; ++bx) {
      EXPECT_EQ(remap_block("diagonal", bx, by, 4, 4), std::make_pair((bx + by) % 4, bx));
    }
  }
}

TEST(BlockOrder, SwizzleGroupsRows) {
  // swizzle2 on a 3x4 grid: the first 6 launched blocks cover block rows 0 and 1, column-major.
  std::vector<std::pair<uint32_t, uint32_t>> first;
  for (uint32_t id = 0; id < 6; ++id)
    first.push_back(remap_block("swizzle2", id % 3, id / 3, 3, 4));
  EXPECT_EQ(first, (std::vector<std::pair<uint32_t, uint32_t>>{
                       {0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}}));
  // A ragged last group (5 rows in groups of 2) holds one row.
  EXPECT_EQ(remap_block("swizzle2", 0, 4, 3, 5), std::make_pair(0u, 4u));
  EXPECT_EQ(remap_block("swizzle2", 2, 4, 3, 5), std::make_pair(2u, 4u));
}

TEST(BlockOrder, PreludeRedefinesBlockIdxFromHardwareRegisters) {
  for (const auto& order : kOrders) {
    if (order == "row") continue;
    const std::string prelude = block_order_prelude(order);
    EXPECT_NE(prelude.find("__device__ __forceinline__ uint3 gputune_block_idx()"),
              std::string::npos);
    EXPECT_NE(prelude.find("#define blockIdx (gputune_block_idx())"), std::string::npos);
    EXPECT_NE(prelude.find("%%ctaid.x"), std::string::npos);
    EXPECT_NE(prelude.find("%%nctaid.y"), std::string::npos);
    EXPECT_EQ(prelude.find("#include"), std::string::npos);
  }
  EXPECT_NE(block_order_prelude("swizzle8").find("n = 8u;"), std::string::npos);
}

TEST(BlockOrder, UnknownOrdersAreSpecErrors) {
  for (const std::string bad :
       {"rows", "swizzle", "swizzle1", "swizzle65", "swizzle08", "swizzlex", "Diagonal", ""}) {
    EXPECT_FALSE(is_block_order(bad)) << bad;
    try {
      block_order_prelude(bad);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kSpec);
      EXPECT_NE(std::string(e.what()).find("expected row, column, diagonal or swizzleN"),
                std::string::npos);
    }
    EXPECT_THROW(remap_block(bad, 0, 0, 1, 1), Error);
  }
  EXPECT_TRUE(is_block_order("swizzle64"));
  EXPECT_TRUE(is_block_order("swizzle2"));
}

}  // namespace
}  // namespace gputune

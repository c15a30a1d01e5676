#include <gtest/gtest.h>

#include "gputune/error.h"
#include "transforms/block_order.h"
#include "transforms/generic_transform.h"

namespace gputune {
namespace {

Value sym(const char* text) { return Value(std::string(text)); }

TransformedVariant applied(const std::string& name, const Value& value) {
  TransformedVariant variant;
  variant.launches.resize(1);
  find_generic_transform(name)->apply(value, &variant);
  return variant;
}

TEST(GenericTransforms, TheBuiltInOnesInTheirOrder) {
  const std::vector<std::string> names = generic_transform_names();
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 3),
            (std::vector<std::string>{"block_order", "max_registers", "fast_math"}));
  EXPECT_EQ(find_generic_transform("nope"), nullptr);
}

TEST(GenericTransforms, ValuesAccepted) {
  const GenericTransform& order = *find_generic_transform("block_order");
  EXPECT_EQ(order.reject(sym("swizzle8")), "");
  EXPECT_EQ(order.reject(sym("diag")),
            "unknown block order 'diag'; expected row, column, diagonal or swizzleN with N in "
            "2..64");
  EXPECT_NE(order.reject(Value(int64_t{1})), "");
  const GenericTransform& registers = *find_generic_transform("max_registers");
  EXPECT_EQ(registers.reject(Value(int64_t{255})), "");
  EXPECT_NE(registers.reject(Value(int64_t{256})), "");
  EXPECT_NE(registers.reject(Value(64.5)), "");
  const GenericTransform& fast_math = *find_generic_transform("fast_math");
  EXPECT_EQ(fast_math.reject(Value(int64_t{1})), "");
  EXPECT_EQ(fast_math.reject(Value(int64_t{2})),
            "fast_math value 2 is not 0 or 1; expected a boolean");
}

TEST(GenericTransforms, HowTheyApply) {
  EXPECT_EQ(applied("block_order", sym("diagonal")).prelude, block_order_prelude("diagonal"));
  EXPECT_EQ(applied("block_order", sym("row")).prelude, "");
  EXPECT_EQ(applied("max_registers", Value(int64_t{64})).compile_options,
            (std::vector<std::string>{"--maxrregcount=64"}));
  EXPECT_TRUE(applied("max_registers", Value(int64_t{0})).compile_options.empty());
  EXPECT_EQ(applied("fast_math", Value(int64_t{1})).compile_options,
            (std::vector<std::string>{"--use_fast_math"}));
  EXPECT_TRUE(applied("fast_math", Value(int64_t{0})).compile_options.empty());
}

TEST(GenericTransforms, ANameIsRegisteredOnce) {
  EXPECT_THROW(register_generic_transform({"fast_math", nullptr, nullptr}), Error);
}

}  // namespace
}  // namespace gputune

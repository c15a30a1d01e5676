// Inputs are filled in parallel from a counter-based generator: the same seed gives the same
// bytes whatever the number of threads, and each element is the documented function of
// (seed, index).
#include "run/host_buffers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "run/parallel_fill.h"

namespace gputune {
namespace {

ArgumentSpec random_argument(uint64_t seed, double low, double high) {
  ArgumentSpec argument;
  argument.name = "in";
  argument.fill = Fill::kRandom;
  argument.seed = seed;
  argument.fill_low = low;
  argument.fill_high = high;
  return argument;
}

TEST(RandomBits, IsTheSplitMix64Stream) {
  // SplitMix64's published first outputs from state 0.
  EXPECT_EQ(random_bits(0, 0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(random_bits(0, 1), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(random_bits(0, 2), 0x06C45D188009454Full);
  const double u = random_unit(5, 123);
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
}

TEST(HostFill, GivesTheSameBytesOnAnyNumberOfThreads) {
  constexpr uint64_t kCount = (uint64_t{3} << 20) + 17;  // enough for several threads
  for (ScalarType type :
       {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kInt32, ScalarType::kUint8}) {
    const ArgumentSpec argument = random_argument(42, -3, 100);
    const auto one = host_fill(argument, type, kCount, 1);
    const auto seven = host_fill(argument, type, kCount, 7);
    ASSERT_EQ(one.size(), kCount * size_of(type));
    EXPECT_EQ(one, seven) << type_name(type);
    EXPECT_EQ(one, host_fill(argument, type, kCount)) << type_name(type);
  }
}

TEST(HostFill, AGeneratorIsItsExpressionOfTheIndexOnAnyNumberOfThreads) {
  ArgumentSpec argument;
  argument.name = "in";
  argument.fill = Fill::kGenerator;
  argument.generator.text = "i % 7 * 0.5 - 1";
  constexpr uint64_t kCount = 100003;
  const auto one = host_fill(argument, ScalarType::kFloat64, kCount, 1);
  EXPECT_EQ(one, host_fill(argument, ScalarType::kFloat64, kCount, 5));
  const double* values = reinterpret_cast<const double*>(one.data());
  for (uint64_t i : {uint64_t{0}, uint64_t{6}, uint64_t{7}, kCount - 1}) {
    EXPECT_DOUBLE_EQ(values[i], static_cast<double>(i % 7) * 0.5 - 1) << i;
  }
  const auto integers = host_fill(argument, ScalarType::kInt32, 8, 2);
  const int32_t* ints = reinterpret_cast<const int32_t*>(integers.data());
  EXPECT_EQ(ints[3], 1);   // 0.5: rounds to nearest, half away from zero
  EXPECT_EQ(ints[4], 1);   // 1.0
  EXPECT_EQ(ints[0], -1);  // -1.0
}

TEST(HostFill, RandomElementsFollowTheGenerator) {
  const ArgumentSpec argument = random_argument(7, -1, 1);
  const auto bytes = host_fill(argument, ScalarType::kFloat32, 4096, 3);
  const float* values = reinterpret_cast<const float*>(bytes.data());
  double sum = 0;
  for (uint64_t i = 0; i < 4096; ++i) {
    ASSERT_EQ(values[i], static_cast<float>(-1 + 2 * random_unit(7, i))) << i;
    ASSERT_GE(values[i], -1.0f);
    ASSERT_LE(values[i], 1.0f);
    sum += values[i];
  }
  EXPECT_LT(std::fabs(sum / 4096), 0.05);  // roughly centred
  const auto ints = host_fill(random_argument(7, 0, 10), ScalarType::kInt32, 1000, 2);
  const int32_t* k = reinterpret_cast<const int32_t*>(ints.data());
  for (uint64_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(k[i], static_cast<int32_t>(std::floor(10 * random_unit(7, i)))) << i;
  }
  EXPECT_NE(host_fill(random_argument(8, -1, 1), ScalarType::kFloat32, 4096), bytes);
}

TEST(HostFill, ConstantIotaAndZerosInParallel) {
  constexpr uint64_t kCount = (uint64_t{2} << 20) + 3;
  ArgumentSpec argument;
  argument.fill = Fill::kIota;
  const auto iota = host_fill(argument, ScalarType::kInt64, kCount, 4);
  const int64_t* i64 = reinterpret_cast<const int64_t*>(iota.data());
  EXPECT_EQ(i64[0], 0);
  EXPECT_EQ(i64[kCount - 1], static_cast<int64_t>(kCount - 1));
  argument.fill = Fill::kConstant;
  argument.fill_value = 2.5;
  const auto constant = host_fill(argument, ScalarType::kFloat32, kCount, 4);
  const float* f = reinterpret_cast<const float*>(constant.data());
  EXPECT_EQ(f[0], 2.5f);
  EXPECT_EQ(f[kCount - 1], 2.5f);
  argument.fill = Fill::kZeros;
  const auto zeros = host_fill(argument, ScalarType::kFloat32, kCount, 4);
  EXPECT_EQ(zeros, InputBytes(kCount * 4, 0));
}

TEST(ParallelRanges, CoversEveryElementOnceAndRethrows) {
  std::vector<int> hits(5'000'000, 0);
  parallel_ranges(hits.size(), 6, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) ++hits[i];
  });
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<long>(hits.size()));
  EXPECT_THROW(parallel_ranges(5'000'000, 4,
                               [](uint64_t begin, uint64_t) {
                                 if (begin > 0) throw std::runtime_error("a failing range");
                               }),
               std::runtime_error);
}

}  // namespace
}  // namespace gputune

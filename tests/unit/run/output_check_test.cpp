// The host side of output checks: regions, partial outputs, initialised outputs.
#include "run/output_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "gputune/error.h"
#include "run/check_region.h"
#include "run/host_buffers.h"

namespace gputune {
namespace {

const unsigned char* bytes(const std::vector<float>& values) {
  return reinterpret_cast<const unsigned char*>(values.data());
}

std::vector<unsigned char> as_bytes(const std::vector<float>& values) {
  return std::vector<unsigned char>(bytes(values), bytes(values) + values.size() * sizeof(float));
}

ArgumentSpec output_with_region(std::vector<std::string> shape, std::vector<std::string> begin,
                                std::vector<std::string> end) {
  ArgumentSpec output;
  output.name = "x_new";
  output.output = true;
  CheckRegionSpec region;
  region.where = {"spec.yaml", 12, 5};
  for (auto& s : shape) region.shape.push_back({s, {"spec.yaml", 12, 14}});
  for (auto& s : begin) region.begin.push_back({s, {"spec.yaml", 12, 30}});
  for (auto& s : end) region.end.push_back({s, {"spec.yaml", 12, 44}});
  output.check_region = region;
  return output;
}

std::string region_error(const ArgumentSpec& output, uint64_t count, const ProblemValues& values) {
  try {
    resolve_check_region(output, count, values);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSpec);
    return e.what();
  }
  return "";
}

TEST(CheckRegionTest, WithoutARegionTheWholeBufferIsChecked) {
  ArgumentSpec output;
  output.name = "y";
  const CheckRegion region = resolve_check_region(output, 10, {});
  EXPECT_TRUE(region.is_whole());
  EXPECT_EQ(region.size(), 10u);
  for (uint64_t i = 0; i < 10; ++i) EXPECT_EQ(region.element(i), i);
}

TEST(CheckRegionTest, AnInteriorOfA2DOutputVisitsItsElementsRowByRow) {
  const CheckRegion region = resolve_check_region(
      output_with_region({"n", "m"}, {"1", "1"}, {"n - 1", "m - 1"}), 4 * 5, {{"n", 4}, {"m", 5}});
  EXPECT_FALSE(region.is_whole());
  ASSERT_EQ(region.size(), 2u * 3u);
  const std::vector<uint64_t> expected = {6, 7, 8, 11, 12, 13};
  for (uint64_t i = 0; i < expected.size(); ++i) EXPECT_EQ(region.element(i), expected[i]);
  EXPECT_EQ(region.coordinates(13), "[2, 3]");
}

TEST(CheckRegionTest, A1DRangeNeedsNoShape) {
  const CheckRegion region =
      resolve_check_region(output_with_region({}, {"0"}, {"blocks"}), 1024, {{"blocks", 8}});
  EXPECT_EQ(region.size(), 8u);
  EXPECT_EQ(region.element(7), 7u);
  EXPECT_EQ(region.coordinates(7), "[7]");
}

TEST(CheckRegionTest, A3DBoxVisitsPlanesRowsAndColumns) {
  const CheckRegion region = resolve_check_region(
      output_with_region({"2", "3", "4"}, {"1", "1", "2"}, {"2", "3", "4"}), 24, {});
  const std::vector<uint64_t> expected = {12 + 4 + 2, 12 + 4 + 3, 12 + 8 + 2, 12 + 8 + 3};
  ASSERT_EQ(region.size(), expected.size());
  for (uint64_t i = 0; i < expected.size(); ++i) EXPECT_EQ(region.element(i), expected[i]);
}

TEST(CheckRegionTest, BadRegionsNameTheSpecLocationAndWhatWasExpected) {
  const std::string outside =
      region_error(output_with_region({"n", "n"}, {"1", "1"}, {"n", "n + 1"}), 16, {{"n", 4}});
  EXPECT_NE(outside.find("spec.yaml:12:44: check region of 'x_new'"), std::string::npos) << outside;
  EXPECT_NE(outside.find("end[1] = 5, shape[1] = 4; expected 0 <= begin <= end <= shape"),
            std::string::npos)
      << outside;

  const std::string product =
      region_error(output_with_region({"n", "n"}, {"0", "0"}, {"n", "n"}), 17, {{"n", 4}});
  EXPECT_NE(product.find("shape [4, 4] holds 16 elements, but 'x_new' has 17"), std::string::npos)
      << product;

  const std::string fraction =
      region_error(output_with_region({}, {"0"}, {"n / 3"}), 16, {{"n", 4}});
  EXPECT_NE(fraction.find("end[0] = n / 3 is"), std::string::npos) << fraction;
  EXPECT_NE(fraction.find("expected a non-negative integer"), std::string::npos) << fraction;

  const std::string reversed = region_error(output_with_region({}, {"3"}, {"2"}), 16, {});
  EXPECT_NE(reversed.find("begin[0] = 3, end[0] = 2"), std::string::npos) << reversed;

  const std::string empty = region_error(output_with_region({}, {"2"}, {"2"}), 16, {});
  EXPECT_NE(empty.find("the region is empty"), std::string::npos) << empty;
}

TEST(CompareOnHostTest, ElementsOutsideTheRegionAreNotCompared) {
  // A 4 x 4 stencil output whose border the kernel leaves alone (NaN: poisoned, unwritten).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> expected(16, nan), got(16, nan);
  const CheckRegion region =
      resolve_check_region(output_with_region({"4", "4"}, {"1", "1"}, {"3", "3"}), 16, {});
  for (uint64_t i = 0; i < region.size(); ++i) {
    expected[region.element(i)] = static_cast<float>(i);
    got[region.element(i)] = static_cast<float>(i);
  }
  got[0] = 99;  // outside: ignored
  EXPECT_EQ(compare_on_host("x_new", ScalarType::kFloat32, bytes(got), bytes(expected), region,
                            1e-5, 1e-6),
            "");
  // The whole buffer holds unwritten NaNs, which never pass.
  EXPECT_NE(
      compare_on_host("x_new", ScalarType::kFloat32, bytes(got), bytes(expected), 16, 1e-5, 1e-6),
      "");

  got[10] = 42;  // inside, at row 2, column 2
  const std::string diff = compare_on_host("x_new", ScalarType::kFloat32, bytes(got),
                                           bytes(expected), region, 1e-5, 1e-6);
  EXPECT_NE(diff.find("x_new: 1 of 4 checked elements differ; first at [2, 2] (index 10): got 42"),
            std::string::npos)
      << diff;
}

TEST(CountNanTest, OnlyTheRegionMustBeWritten) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Partial sums: the first 3 of 8 elements written, the rest poisoned.
  const std::vector<float> partial = {1, 2, 3, nan, nan, nan, nan, nan};
  ArgumentSpec output = output_with_region({}, {"0"}, {"blocks"});
  EXPECT_EQ(count_nan(ScalarType::kFloat32, as_bytes(partial)), 5u);
  EXPECT_EQ(count_nan(ScalarType::kFloat32, as_bytes(partial),
                      resolve_check_region(output, 8, {{"blocks", 3}})),
            0u);
  EXPECT_EQ(count_nan(ScalarType::kFloat32, as_bytes(partial),
                      resolve_check_region(output, 8, {{"blocks", 4}})),
            1u);
}

TEST(OutputBuffersTest, AnInitialisedOutputStartsFromItsFillAndKeepsItsRegion) {
  Spec spec;
  spec.path = "spec.yaml";
  spec.problem = {{"n", {"4", {}}}};
  ArgumentSpec input;
  input.name = "x";
  input.count = {"n * n", {}};
  input.fill = Fill::kIota;
  ArgumentSpec output = output_with_region({"n", "n"}, {"1", "1"}, {"n - 1", "n - 1"});
  output.count = {"n * n", {}};
  output.initialised = true;
  output.fill = Fill::kConstant;
  output.fill_value = 7;
  ArgumentSpec poisoned;
  poisoned.name = "y";
  poisoned.count = {"n", {}};
  poisoned.output = true;
  spec.arguments = {input, output, poisoned};
  LaunchSpec launch;
  launch.kernel_name = {"k", {}};
  launch.arguments = {0, 1, 2};
  launch.block = {{"1", {}}};
  launch.grid = {{"1", {}}};
  spec.launches = {launch};
  spec.parameters = {{"P", {Value(int64_t{1})}, {}, false}};
  spec.baseline = {{"P", Value(int64_t{1})}};
  spec.kernel_source = "__global__ void k(float*, float*, float*) {}";
  check_spec(spec);

  const std::vector<HostBuffer> buffers = make_host_buffers(Problem(spec, {{"n", 6}}));
  ASSERT_EQ(buffers.size(), 3u);
  EXPECT_TRUE(buffers[0].initial.empty());  // inputs keep their data, as before
  const HostBuffer& initialised = buffers[1];
  ASSERT_EQ(initialised.initial.size(), 36 * sizeof(float));
  std::vector<float> initial(36);
  std::memcpy(initial.data(), initialised.initial.data(), initialised.initial.size());
  for (float v : initial) EXPECT_EQ(v, 7.0f);
  EXPECT_EQ(initialised.region.size(), 16u);  // at n = 6, not the spec's 4
  EXPECT_TRUE(initialised.data.empty());      // the reference comes from the baseline
  EXPECT_TRUE(buffers[2].initial.empty());    // poisoned, not filled
  EXPECT_TRUE(buffers[2].region.is_whole());
}

}  // namespace
}  // namespace gputune

// Blocks larger than the device allows are not in the space: valid() rejects them as a
// constraint would, so no strategy proposes them, and they are counted as pruned.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputune/error.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// BX x BY: 6 x 3 = 18 configs, 15 with BX >= 64, 3 of those above 1024 threads
// (1024x2, 1024x4, 512x4).
const char* const kSpec = R"(kernel: {source: k.cu, name: k}
problem: {n: 4096}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [BX, BY], grid: [ceil(n / (BX * BY))]}
parameters: {BX: [32, 64, 128, 256, 512, 1024], BY: [1, 2, 4]}
constraints: [BX >= 64]
baseline: {BX: 64, BY: 1}
)";

class DeviceLimitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_device_limit_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  Spec spec(const std::string& text = kSpec) const {
    return parse_spec(text, (dir_ / "spec.yaml").string(), {});
  }

  static double threads(const Problem& problem, uint64_t index) {
    const std::vector<Value> values = problem.space().values(index);
    return values[0].as_number() * values[1].as_number();
  }

  fs::path dir_;
};

TEST_F(DeviceLimitTest, OversizeBlocksArePrunedLikeAConstraint) {
  Problem problem(spec());
  const SearchSpace& space = problem.space();
  EXPECT_EQ(space.count_valid(), 12u);
  const std::vector<PrunedConfigs> pruned = problem.pruned();
  ASSERT_EQ(pruned.size(), 1u);
  EXPECT_EQ(pruned[0].reason, "exceed 1024 threads per block");
  EXPECT_EQ(pruned[0].configs, 3u);
  for (uint64_t i = 0; i < space.size(); ++i) {
    const bool constrained = space.values(i)[0].as_number() < 64;
    if (constrained) {
      EXPECT_EQ(space.failed_constraint(i), 0) << space.describe(i);
    } else if (threads(problem, i) > kMaxThreadsPerBlock) {
      EXPECT_FALSE(space.valid(i)) << space.describe(i);
      EXPECT_EQ(space.failed_constraint(i), static_cast<int>(space.constraint_count()));
    } else {
      EXPECT_TRUE(space.valid(i)) << space.describe(i);
    }
  }
}

TEST_F(DeviceLimitTest, TheLimitIsTheTargetsAndNothingIsPrunedWithinIt) {
  Problem small(spec(), {}, 256);
  EXPECT_EQ(small.pruned().at(0).reason, "exceed 256 threads per block");
  // Within BX >= 64, the configs with at most 256 threads: 64x1, 64x2, 64x4, 128x1, 128x2, 256x1.
  EXPECT_EQ(small.space().count_valid(), 6u);

  std::string text = kSpec;
  text.replace(text.find("[32, 64, 128, 256, 512, 1024]"), 29, "[32, 64, 128, 256, 512]");
  text.replace(text.find("BY: [1, 2, 4]"), 13, "BY: [1, 2]");  // 512 x 2 is the largest
  Problem within(spec(text));
  EXPECT_TRUE(within.pruned().empty());
  EXPECT_EQ(within.space().count_valid(), within.space().size() - 2);  // BX=32, BY 1 and 2
}

TEST_F(DeviceLimitTest, OnlyLaunchesWhoseConditionHoldsCount) {
  std::string text = kSpec;
  text.replace(text.find(", name: k}"), 10, "}");
  text.replace(text.find("launch: "), text.find("parameters:") - text.find("launch: "),
               "launches:\n"
               "  - {kernel: k, arguments: [out, n], block: [BX], grid: [1]}\n"
               "  - {kernel: k, when: BIG == 1, arguments: [out, n], block: [BX, BY], grid: "
               "[1]}\n");
  text.replace(text.find("BY: [1, 2, 4]}"), 14, "BY: [1, 2, 4], BIG: [0, 1]}");
  text.replace(text.find("BY: 1}"), 6, "BY: 1, BIG: 0}");
  Problem problem(spec(text));
  ASSERT_EQ(problem.pruned().size(), 1u);
  EXPECT_EQ(problem.pruned()[0].configs, 3u) << "only with BIG == 1";
  EXPECT_EQ(problem.space().count_valid(), 2u * 15 - 3);
}

TEST_F(DeviceLimitTest, ABaselineAboveTheLimitSaysWhereAndWhy) {
  std::string text = kSpec;
  text.replace(text.find("baseline: {BX: 64, BY: 1}"), 25, "baseline: {BX: 512, BY: 4}");
  try {
    Problem problem(spec(text));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("spec.yaml:9:"), std::string::npos) << message;
    EXPECT_NE(message.find("exceed 1024 threads per block"), std::string::npos) << message;
  }
}

TEST_F(DeviceLimitTest, ASpaceWhereEveryConfigIsTooBigSaysSo) {
  std::string text = kSpec;
  text.replace(text.find("[32, 64, 128, 256, 512, 1024]"), 29, "[2048, 4096]");
  text.replace(text.find("baseline: {BX: 64, BY: 1}"), 25, "#");
  try {
    Problem problem(spec(text));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no config both satisfies the constraints and fits the device: 6 "
                           "that satisfy them exceed 1024 threads per block"),
              std::string::npos)
        << message;
  }
}

TEST(SearchSpaceLimits, ComeAfterTheConstraintsAndCountWhatOnlyTheyPrune) {
  Scope problem;
  std::vector<Dimension> dims = {{"A", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}}, false}};
  SearchSpace space(dims, {"A != 1"}, problem);
  space.add_limit({"are even", [](const std::vector<size_t>& digits) { return digits[0] % 2; }});
  // A=1 fails the constraint (and the limit): it counts as the constraint's.
  EXPECT_EQ(space.failed_constraint(0), 0);
  EXPECT_EQ(space.failed_constraint(1), -1);  // A=2: digit 1
  EXPECT_EQ(space.failed_constraint(2), 1);   // A=3: digit 2 is even, so the limit fails
  EXPECT_EQ(space.count_valid(), 2u);
  EXPECT_EQ(space.count_pruned_by_limits(), (std::vector<uint64_t>{1}));
}

}  // namespace
}  // namespace gputune

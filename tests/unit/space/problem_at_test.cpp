// Problem at other problem values, given as numbers (the geometry features' use).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "space/problem.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* const kSpec = R"(kernel: {source: k.cu, name: k}
problem: {n: 1000, m: n / 2 + 4}
arguments:
  - {name: out, type: float32, count: n * m, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [TILE], grid: [ceil(n / TILE), ceil(m / TILE)]}
parameters: {TILE: [16, 32, 64]}
)";

class ProblemAtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_problem_at_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  Spec spec(const Overrides& overrides = {}) const {
    return parse_spec(kSpec, (dir_ / "s.yaml").string(), overrides);
  }
  fs::path dir_;
};

TEST_F(ProblemAtTest, GivenValuesReplaceTheirExpressionsAndFeedTheOthers) {
  const Problem at(spec(), {{"n", 4096}});
  EXPECT_EQ(at.problem_json(), R"({"n":4096,"m":2052})");
  const Problem set(spec({{"n", "4096"}}));
  EXPECT_EQ(at.problem_values(), set.problem_values());
  for (uint64_t i = 0; i < at.space().size(); ++i) {
    EXPECT_EQ(at.variant(i).launches[0].grid, set.variant(i).launches[0].grid);
    EXPECT_EQ(at.variant(i).scalar_arguments, set.variant(i).scalar_arguments);
  }
}

TEST_F(ProblemAtTest, ValuesThatAreNotIntegersStayExact) {
  const Problem at(spec(), {{"n", 1000}, {"m", 0.1}});
  EXPECT_EQ(at.problem_values()[1].second, 0.1);
  EXPECT_EQ(at.problem_json(), R"({"n":1000,"m":0.1})");
}

TEST_F(ProblemAtTest, UnknownNamesAreIgnoredAndNoValuesIsTheSpecItself) {
  const Problem at(spec(), {{"k", 3}});
  EXPECT_EQ(at.problem_json(), Problem(spec()).problem_json());
  EXPECT_EQ(at.problem_json(), R"({"n":1000,"m":504})");
}

}  // namespace
}  // namespace gputune

// A generic transform added to the table is validated by the spec check and applied to variants
// by Problem, with no other change.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputune/error.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "transforms/generic_transform.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Test-only: launches `split` times as many blocks along x and tells the kernel so.
void register_split() {
  static const bool registered = [] {
    register_generic_transform(
        {"test_split",
         [](const Value& value) -> std::string {
           if (value.is_integer() && value.as_number() >= 1 && value.as_number() <= 4) return "";
           return "test_split value " + value.text() + " is not in 1..4";
         },
         [](const Value& value, TransformedVariant* variant) {
           const auto split = static_cast<uint32_t>(value.as_number());
           variant->prelude += "#define TEST_SPLIT " + value.text() + "\n";
           variant->compile_options.push_back("-DTEST_SPLIT=" + value.text());
           for (LaunchGeometry& launch : variant->launches) launch.grid[0] *= split;
         }});
    return true;
  }();
  (void)registered;
}

std::string spec_text(const std::string& values) {
  return "kernel: {source: k.cu, name: copy}\n"
         "problem: {n: 1024}\n"
         "arguments:\n"
         "  - {name: out, type: float32, count: n, output: true}\n"
         "launch: {block: [128], grid: [n / 128]}\n"
         "transforms:\n"
         "  test_split: " +
         values + "\n";
}

class GenericTransformTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_split();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_generic_transform_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "__global__ void copy(float* out) {}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path() const { return (dir_ / "spec.yaml").string(); }
  fs::path dir_;
};

TEST_F(GenericTransformTest, ValidatedByTheSpecCheck) {
  try {
    parse_spec(spec_text("[1, 5]"), path());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path() + ":7:19: test_split value 5 is not in 1..4");
  }
}

TEST_F(GenericTransformTest, AppliedToEveryVariant) {
  Problem problem(parse_spec(spec_text("[1, 4]"), path()));
  EXPECT_TRUE(problem.space().dimensions()[0].is_transform);
  const Variant plain = problem.variant(0);
  const Variant split = problem.variant(1);
  EXPECT_EQ(plain.launches.at(0).grid[0], 8u);
  EXPECT_EQ(split.launches.at(0).grid[0], 32u);
  EXPECT_EQ(split.launches.at(0).block[0], 128u);
  EXPECT_EQ(split.prelude, "#define TEST_SPLIT 4\n");
  EXPECT_EQ(split.compile_options.back(), "-DTEST_SPLIT=4");
}

}  // namespace
}  // namespace gputune

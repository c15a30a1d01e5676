// Which outputs come with their expected values: where every one does, the runner judges the
// baseline like any variant instead of taking its outputs as the reference.
#include "run/host_buffers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "spec/spec_loader.h"
#include "support/add_t1.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class HostBuffersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_host_buffers_test_" + std::to_string(getpid()));
    spec_ = load_spec(testing::write_add_t1(dir_));
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void expect_ones(Spec& spec) {
    auto expected = std::make_shared<ArgumentSpec>();
    expected->fill = Fill::kConstant;
    expected->fill_value = 1;
    spec.arguments[0].reference_fill = expected;
  }

  fs::path dir_;
  Spec spec_;
};

TEST_F(HostBuffersTest, TheBaselineIsTheReferenceUnlessTheSpecGivesTheExpectedOutputs) {
  EXPECT_FALSE(every_output_given(make_host_buffers(Problem(spec_))));
  expect_ones(spec_);
  const std::vector<HostBuffer> given = make_host_buffers(Problem(spec_));
  EXPECT_TRUE(every_output_given(given));
  ASSERT_FALSE(given.front().data.empty());
  EXPECT_EQ(reinterpret_cast<const float*>(given.front().data.data())[0], 1.0f);
}

TEST_F(HostBuffersTest, CheckBaselineMakesTheBaselineTheReferenceAgain) {
  expect_ones(spec_);
  CheckOverride change;
  change.check = "baseline";
  override_check(spec_, change);
  EXPECT_FALSE(every_output_given(make_host_buffers(Problem(spec_))));
}

TEST(EveryOutputGiven, IsFalseWithoutOutputsAndWhereOneOutputLacksIt) {
  EXPECT_FALSE(every_output_given({}));
  HostBuffer given, missing, input;
  given.output = missing.output = true;
  given.given_reference = true;
  EXPECT_TRUE(every_output_given({given, input}));
  EXPECT_FALSE(every_output_given({given, missing}));
}

}  // namespace
}  // namespace gputune

#include "search/matching_workloads.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "support/synthetic_recording.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class MatchingWorkloadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_matching_test_" + std::to_string(getpid()));
    spec_ = testing::write_synthetic_spec(dir_);
    store_ = open_sqlite_store(":memory:");
    testing::record_synthetic(*store_, spec_, 1024, 0);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<WorkloadSummary> found() {
    const Spec spec = load_spec(spec_, {{"n", "1024"}});
    return workloads_measured_as(*store_, spec, Problem(spec).problem_json());
  }

  fs::path dir_;
  std::string spec_;
  std::unique_ptr<Store> store_;
};

TEST_F(MatchingWorkloadsTest, TheSpecItWasMeasuredWithFindsIt) {
  ASSERT_EQ(found().size(), 1u);
  EXPECT_TRUE(found()[0].best.has_value());
}

TEST_F(MatchingWorkloadsTest, ASpecAnnotatedSinceStillFindsIt) {
  std::ofstream(spec_, std::ios::app) << "# annotated later\nremedies: {padding: [+PAD]}\n";
  const auto workloads = found();
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_NE(workloads[0].key.spec_hash, load_spec(spec_, {{"n", "1024"}}).spec_hash());
}

TEST_F(MatchingWorkloadsTest, OtherValuesOrAnotherKernelFindNothing) {
  std::string text = testing::kSyntheticSpec;
  text.replace(text.find("PAD: [0, 1]"), 11, "PAD: [0, 1, 2]");
  std::ofstream(spec_) << text;
  EXPECT_TRUE(found().empty());

  std::ofstream(spec_) << testing::kSyntheticSpec;
  ASSERT_EQ(found().size(), 1u);
  std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) { }\n";
  EXPECT_TRUE(found().empty());
}

TEST_F(MatchingWorkloadsTest, ASearchOfTheAnnotatedSpecGoesOnInTheSameWorkload) {
  std::ofstream(spec_, std::ios::app) << "remedies: {padding: [+PAD]}\n";
  testing::record_synthetic(*store_, spec_, 1024, 0);
  EXPECT_EQ(store_->workloads().size(), 1u);
}

TEST_F(MatchingWorkloadsTest, TheExactTextComesFirst) {
  // A database with both texts as workloads of their own (written before searches went on in
  // the workload measured as theirs): the one of this text first.
  const WorkloadKey measured = found().at(0).key;
  std::ofstream(spec_, std::ios::app) << "remedies: {padding: [+PAD]}\n";
  const Spec annotated = load_spec(spec_, {{"n", "1024"}});
  const int64_t exact =
      store_->workload(workload_key(Problem(annotated), measured.device, measured.nvrtc_version));
  const auto workloads = found();
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0].id, exact);
  EXPECT_EQ(workloads[1].key.spec_hash, measured.spec_hash);
  EXPECT_EQ(
      workload_measured_as(*store_, Problem(annotated), measured.device, measured.nvrtc_version),
      exact);
}

TEST(WorkloadOn, IsTheOneMeasuredOnTheGpuAtHand) {
  auto on = [](const std::string& name) {
    WorkloadSummary w;
    w.key.device.name = name;
    w.key.device.cc_major = 9;
    w.key.device.sm_count = 132;
    return w;
  };
  const std::vector<WorkloadSummary> workloads = {on("NVIDIA H100"), on("NVIDIA H200")};
  DeviceInfo h200 = workloads[1].key.device;
  h200.ordinal = 1;
  EXPECT_EQ(workload_on(workloads, h200), &workloads[1]);
  DeviceInfo a100;
  a100.name = "NVIDIA A100";
  EXPECT_EQ(workload_on(workloads, a100), nullptr) << "counters of one GPU never go to another's";
  EXPECT_EQ(workload_on(workloads, std::nullopt), &workloads[0]) << "no GPU listed to compare";
  EXPECT_EQ(workload_on({}, std::nullopt), nullptr);
}

}  // namespace
}  // namespace gputune

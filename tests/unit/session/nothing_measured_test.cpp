// `gputune best` (and `source --best`) on a database that holds nothing for the spec: the
// message names the real cause, not only "nothing measured".
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputune/error.h"
#include "gputune/session.h"
#include "gputune/transforms.h"
#include "store/store.h"
#include "support/synthetic_recording.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class NothingMeasuredTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_nothing_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    spec_ = testing::write_synthetic_spec(dir_);
    db_ = (dir_ / "results.db").string();
    auto store = open_sqlite_store(db_);
    testing::record_synthetic(*store, spec_, 1024, 0);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The synthetic spec with `from` replaced by `to`, written beside the kernel.
  std::string edited(const std::string& from, const std::string& to) const {
    std::string text = testing::kSyntheticSpec;
    text.replace(text.find(from), from.size(), to);
    const std::string path = (dir_ / "edited.yaml").string();
    std::ofstream(path) << text;
    return path;
  }

  bool says(const std::string& why, const std::string& part) const {
    return why.find(part) != std::string::npos;
  }

  fs::path dir_;
  std::string spec_, db_;
};

TEST_F(NothingMeasuredTest, OtherProblemValuesAreNamed) {
  const Spec spec = open_spec(spec_, {{"n", "2048"}});
  ASSERT_TRUE(stored_workloads(db_, spec).empty());
  const std::string why = why_nothing_measured(db_, spec);
  EXPECT_TRUE(says(why, "measured at n=1024, not at n=2048")) << why;
  EXPECT_TRUE(says(why, "--set")) << why;
}

TEST_F(NothingMeasuredTest, AnotherVersionOfTheSpecIsNamedWithBothHashes) {
  const Spec changed = open_spec(edited("UNROLL: [1, 2, 4, 8]", "UNROLL: [1, 2, 4, 8, 16]"));
  const Spec original = open_spec(spec_);
  ASSERT_TRUE(stored_workloads(db_, changed).empty());
  const std::string why = why_nothing_measured(db_, changed);
  EXPECT_TRUE(says(why, "another version of the spec")) << why;
  EXPECT_TRUE(says(why, original.spec_hash().substr(0, 12))) << why;
  EXPECT_TRUE(says(why, changed.spec_hash().substr(0, 12))) << why;
  EXPECT_TRUE(says(why, spec_)) << why;  // where the measured version was
}

TEST_F(NothingMeasuredTest, AnotherKernelSourceIsNamed) {
  std::ofstream(dir_ / "k.cu", std::ios::app) << "// edited\n";
  const Spec spec = open_spec(spec_);
  ASSERT_TRUE(stored_workloads(db_, spec).empty());
  const std::string why = why_nothing_measured(db_, spec);
  EXPECT_TRUE(says(why, "another kernel source")) << why;
  EXPECT_TRUE(says(why, spec.source_hash().substr(0, 12))) << why;
}

TEST_F(NothingMeasuredTest, AnotherKernelNamesTheKernelsHeld) {
  std::ofstream(dir_ / "other.cu") << "extern \"C\" __global__ void other(float* out, int n) {}\n";
  std::string text = testing::kSyntheticSpec;
  text.replace(text.find("{source: k.cu, name: k}"), 23, "{source: other.cu, name: other}");
  std::ofstream(dir_ / "other.yaml") << text;
  const std::string why = why_nothing_measured(db_, open_spec((dir_ / "other.yaml").string()));
  EXPECT_TRUE(says(why, "no workload of kernel 'other'")) << why;
  EXPECT_TRUE(says(why, "it holds kernel 'k'")) << why;
}

TEST_F(NothingMeasuredTest, TheVariantSourceOfTheBestSaysWhy) {
  VariantChoice choice;
  choice.best_db = db_;
  try {
    variant_source(open_spec(spec_, {{"n", "4096"}}), choice);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_TRUE(says(e.what(), "measured at n=1024")) << e.what();
  }
}

}  // namespace
}  // namespace gputune

// A spec's check changed from outside it (--check, --atol, --rtol; Python's search()): what it
// changes, what it refuses, and that the results are not stored as the spec's own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "gputune/error.h"
#include "gputune/spec.h"
#include "spec/spec_loader.h"
#include "support/add_t1.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// A T1 file of our own whose output `out` is checked by default.
class T1Folder {
 public:
  T1Folder()
      : dir_(fs::temp_directory_path() / ("gputune_check_override_" + std::to_string(getpid()))),
        path_(testing::write_add_t1(dir_)) {}
  ~T1Folder() { fs::remove_all(dir_); }
  const std::string& path() const { return path_; }

 private:
  fs::path dir_;
  std::string path_;
};

CheckOverride change(const std::string& check, std::optional<double> atol = std::nullopt,
                     std::optional<double> rtol = std::nullopt) {
  CheckOverride out;
  out.check = check;
  out.atol = atol;
  out.rtol = rtol;
  return out;
}

std::string usage_error(Spec spec, const CheckOverride& how) {
  try {
    override_check(spec, how);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

TEST(CheckOverride, NoneTurnsTheT1FilesCheckOffAndIsNotTheSpecsOwnWorkload) {
  T1Folder folder;
  const Spec original = load_spec(folder.path());
  ASSERT_TRUE(original.check_outputs);
  Spec spec = original;
  override_check(spec, change("none"));
  EXPECT_FALSE(spec.check_outputs);
  EXPECT_EQ(spec.check_override, "--check none");
  EXPECT_NE(spec.spec_hash(), original.spec_hash());
  EXPECT_NE(spec.measurement_hash(), original.measurement_hash());
  // The stored text (what release reads back) is still a T1 file, with the change in it.
  const Spec reread = parse_spec(spec.text, folder.path());
  EXPECT_EQ(reread.kernel_name.text, "add");
  EXPECT_NE(spec.text.find("// gputune: checked as --check none"), std::string::npos);
}

TEST(CheckOverride, TolerancesReplaceTheSpecsAndBaselineDropsReferences) {
  T1Folder folder;
  Spec spec = load_spec(folder.path());
  override_check(spec, change("", 0.01, 1e-3));
  EXPECT_TRUE(spec.check_outputs);
  EXPECT_DOUBLE_EQ(spec.atol, 0.01);
  EXPECT_DOUBLE_EQ(spec.rtol, 1e-3);
  EXPECT_EQ(spec.check_override, "--atol 0.01 --rtol 0.001");

  Spec with_reference = load_spec(folder.path());
  with_reference.arguments[0].reference =
      std::make_shared<const std::vector<unsigned char>>(4096 * 4, 0);
  override_check(with_reference, change("baseline"));
  EXPECT_FALSE(with_reference.arguments[0].reference);
  EXPECT_TRUE(with_reference.check_outputs);
}

TEST(CheckOverride, AYamlSpecsChangedCheckChangesItsMeasurementHash) {
  Spec spec;
  spec.path = "spec.yaml";
  spec.text = "kernel: {source: k.cu, name: k}\ncheck: {rtol: 1e-5}\n";
  ArgumentSpec out;
  out.output = true;
  spec.arguments.push_back(out);
  const std::string before = spec.measurement_hash();
  override_check(spec, change("", std::nullopt, 1e-2));
  EXPECT_NE(spec.measurement_hash(), before);
  EXPECT_NE(spec.text.find("# gputune: checked as --rtol 0.01"), std::string::npos);
}

TEST(CheckOverride, BadValuesAreUsageErrors) {
  T1Folder folder;
  const Spec spec = load_spec(folder.path());
  EXPECT_NE(usage_error(spec, change("maybe")).find("--check maybe: expected none"),
            std::string::npos);
  EXPECT_NE(usage_error(spec, change("", -1.0)).find("--atol -1: expected a tolerance >= 0"),
            std::string::npos);
  EXPECT_NE(usage_error(spec, change("", std::nullopt, NAN)).find("--rtol nan"), std::string::npos);
  EXPECT_NE(usage_error(spec, change("none", 0.1)).find("nothing is compared"), std::string::npos);
  Spec unchecked = spec;
  override_check(unchecked, change("none"));
  EXPECT_NE(usage_error(unchecked, change("", 0.1)).find("expected --check baseline"),
            std::string::npos);
  Spec no_output = spec;
  no_output.arguments[0].output = false;
  EXPECT_NE(usage_error(no_output, change("baseline")).find("no argument is an output"),
            std::string::npos);
}

}  // namespace
}  // namespace gputune

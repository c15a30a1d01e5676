// The release databases shipped in db/releases answer for every shipped spec as it is now. A
// change to a kernel's source changes its source hash, and a release tuned on the old source
// then refuses that kernel (`gputune select` falls back to the default): such a change has to
// come with a rebuilt release (tools/ship-releases.sh on each GPU).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

TEST(ShippedReleases, AnswerEveryShippedSpecWithItsCurrentSource) {
  const std::pair<const char*, const char*> releases[] = {
      {"h100.gtrel", "--device-name 'NVIDIA H100 80GB HBM3' --cc 9.0 --sm-count 132"},
      {"h200.gtrel", "--device-name 'NVIDIA H200' --cc 9.0 --sm-count 132"}};
  size_t checked = 0;
  for (const auto& [file, device] : releases) {
    const std::string release = test::source_dir() + "/db/releases/" + file;
    ASSERT_TRUE(fs::exists(release)) << release;
    for (const auto& entry : fs::directory_iterator(test::source_dir() + "/spaces")) {
      if (entry.path().extension() != ".yaml") continue;
      const std::string spec = entry.path().string();
      const testing::CommandResult r = testing::run_gputune(
          "select " + spec + " --db " + release + " " + device + " --strict --json");
      const std::string where = std::string(file) + ", " + entry.path().filename().string();
      EXPECT_EQ(r.exit_code, 0) << where << ": " << r.err;
      EXPECT_EQ(r.err.find("source hash"), std::string::npos) << where << ": " << r.err;
      const nlohmann::json out = nlohmann::json::parse(r.out, nullptr, false);
      ASSERT_FALSE(out.is_discarded()) << where << ": " << r.out << r.err;
      EXPECT_NE(out.value("tier", ""), "default") << where << ": " << r.out;
      ++checked;
    }
  }
  EXPECT_GE(checked, 12u);
}

}  // namespace
}  // namespace gputune

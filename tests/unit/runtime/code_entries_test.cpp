#include "runtime/code_entries.h"

#include <gtest/gtest.h>

namespace gputune::runtime {
namespace {

LaunchGeometry launch(const std::string& kernel) {
  LaunchGeometry l;
  l.kernel = kernel;
  return l;
}

// The builder joins a multi-kernel variant's lowered names with spaces, one per distinct kernel
// in first-use order; the reader split them on ';' and took one per launch, so a second kernel
// (and any kernel used twice) got the wrong function.
TEST(CodeEntries, EachLaunchGetsItsKernelsLoweredName) {
  const std::vector<LaunchGeometry> launches = {launch("first<32>"), launch("second"),
                                                launch("first<32>")};
  EXPECT_EQ(launch_entries("_Z5firstILi32EEvv _Z6secondv", launches),
            (std::vector<std::string>{"_Z5firstILi32EEvv", "_Z6secondv", "_Z5firstILi32EEvv"}));
  EXPECT_EQ(launch_entries("_Z1kv", {launch("k")}), (std::vector<std::string>{"_Z1kv"}));
  EXPECT_EQ(launch_entries("", {launch("k")}), (std::vector<std::string>{"k"}));
}

}  // namespace
}  // namespace gputune::runtime

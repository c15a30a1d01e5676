// bench/fusion_table.py, which tools/fusion-bench.sh runs on the GPU machine: from a search's
// JSON (a trimmed one of an H100 run), the best config of each `fuse` value and its speed-up over
// the best unfused one.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "test_paths.h"

namespace gputune {
namespace {

std::string run(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  std::array<char, 4096> buffer;
  while (pipe && fgets(buffer.data(), buffer.size(), pipe.get())) out += buffer.data();
  return out;
}

TEST(FusionTable, EachFuseValuesBestAgainstTheBestUnfused) {
  const std::string out = run("python3 " + test::source_dir() + "/bench/fusion_table.py " +
                              test::source_dir() + "/tests/fixtures/bench/fusion_search.json 8192");
  EXPECT_NE(out.find("NVIDIA H100 80GB HBM3, 8192 x 8192, 4 configs correct, 0 failed:"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("| 0 | BX=128 BY=4 fuse=0 thread_merge_y=4 | 0.5730 | 1.000x |"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("| 3 | BX=128 BY=32 fuse=3 thread_merge_y=8 | 0.3317 | 1.727x |"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace gputune

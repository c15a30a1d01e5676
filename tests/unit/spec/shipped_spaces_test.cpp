// Every variant of every shipped space compiles with NVRTC for sm_90, with no GPU: a kernel
// edit or a space change that breaks some corner of a space fails here, not in a search.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "process/compile_pool.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

std::vector<std::string> spec_names() {
  std::vector<std::string> names;
  for (const auto& path : shipped_specs()) {
    names.push_back(std::filesystem::path(path).stem().string());
  }
  return names;
}

class ShippedSpace : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedSpace, EveryVariantCompilesForSm90) {
  const Problem problem(load_spec(resolve_spec(GetParam())));
  CompilePool compiler(0);  // a worker per core: NVRTC serialises inside one process
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Measurement> results = compile_all(problem, compiler, "sm_90");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(results.size(), problem.space().count_valid());
  size_t failed = 0;
  for (const Measurement& m : results) {
    if (m.status == Status::kOk) continue;
    if (++failed <= 3) {
      ADD_FAILURE() << GetParam() << " " << problem.space().describe(m.config_index)
                    << " does not compile:\n"
                    << m.message;
    }
  }
  EXPECT_EQ(failed, 0u) << GetParam() << ": " << failed << " of " << results.size()
                        << " variants do not compile";
  std::printf("%s: %zu variants compiled in %.1f s (%.0f ms each)\n", GetParam().c_str(),
              results.size(), seconds, 1e3 * seconds / std::max<size_t>(1, results.size()));
}

INSTANTIATE_TEST_SUITE_P(Spaces, ShippedSpace, ::testing::ValuesIn(spec_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace gputune

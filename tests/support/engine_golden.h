#pragma once
// The engine's golden tests: a kernel of tests/fixtures/engine/ rewritten for some knob values
// is compared with tests/golden/engine/<name>, and compiled by NVRTC for sm_90.
// GPUTUNE_UPDATE_GOLDEN=1 rewrites the expectations (only when a change of output is meant).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "engine/engine.h"
#include "test_paths.h"

namespace gputune::test {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// tests/fixtures/engine/<file> as the engine sees it.
inline engine::KernelUnit engine_fixture(
    const std::string& file, std::vector<std::pair<std::string, std::string>> defines = {}) {
  engine::KernelUnit unit;
  unit.file_name = file;
  unit.text = read_text(std::filesystem::path(source_dir()) / "tests/fixtures/engine" / file);
  unit.defines = std::move(defines);
  return unit;
}

// A kernel file of a test's own, named `file_name` in the engine's messages.
inline engine::KernelUnit engine_unit(const std::string& file_name, const std::string& text) {
  engine::KernelUnit unit;
  unit.file_name = file_name;
  unit.text = text;
  return unit;
}

inline void expect_engine_golden(const std::string& name, const std::string& actual) {
  const std::filesystem::path path =
      std::filesystem::path(source_dir()) / "tests/golden/engine" / name;
  if (std::getenv("GPUTUNE_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << path << " is missing; GPUTUNE_UPDATE_GOLDEN=1 writes it";
  EXPECT_EQ(actual, read_text(path)) << "differs from " << path;
}

// NVRTC's log where the source does not compile for sm_90 with the unit's defines; "" where it
// does.
inline std::string nvrtc_errors(const engine::KernelUnit& unit, const std::string& source,
                                const std::vector<std::string>& kernels) {
  CompileRequest request;
  request.source = source;
  request.source_name = unit.file_name;
  request.kernel_name_expressions = kernels;
  for (const auto& [name, value] : unit.defines)
    request.options.push_back("-D" + name + "=" + value);
  request.arch = "sm_90";
  const CompiledKernel compiled = make_nvrtc_compiler()->compile(request);
  return compiled.ok ? "" : compiled.log.empty() ? "does not compile" : compiled.log;
}

// Rewrites `unit` with `knobs`, compares the result with tests/golden/engine/<golden> and
// compiles it with the `kernels` as name expressions.
inline void expect_engine_rewrite(const engine::KernelUnit& unit, const engine::SourceKnobs& knobs,
                                  const std::string& golden,
                                  const std::vector<std::string>& kernels) {
  const engine::Rewrite rewrite = engine::source_engine().rewrite(unit, knobs);
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  expect_engine_golden(golden, rewrite.source);
  EXPECT_EQ(nvrtc_errors(unit, rewrite.source, kernels), "") << rewrite.source;
}

}  // namespace gputune::test

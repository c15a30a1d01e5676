// Every rewrite the merges produce for the kernels of tests/fixtures/engine compiles with NVRTC
// for sm_90, as gputune compiles variants.
#include <gtest/gtest.h>

#include "compile/compiler.h"
#include "merge_cases.h"

namespace gputune::engine {
namespace {

void expect_compiles(const std::string& kernel, const std::vector<test::Variant>& variants,
                     bool expect_all) {
  auto compiler = make_nvrtc_compiler();
  for (const test::Variant& variant : variants) {
    SCOPED_TRACE(kernel + " " + variant.suffix);
    const Rewrite rewrite = source_engine().rewrite(test::fixture(kernel), variant.knobs);
    if (!rewrite.ok) {
      EXPECT_FALSE(expect_all) << rewrite.message;
      continue;
    }
    CompileRequest request;
    request.source = rewrite.source;
    request.source_name = kernel + "." + variant.suffix + ".cu";
    request.kernel_name_expressions = {kernel};
    request.arch = "sm_90";
    const CompiledKernel compiled = compiler->compile(request);
    EXPECT_TRUE(compiled.ok) << compiled.log << "\n" << rewrite.source;
  }
}

TEST(MergeCompile, EveryThreadMergeOfEveryKernelCompiles) {
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    expect_compiles(kernel.name, test::thread_merge_variants(kernel.two_d), true);
  }
}

TEST(MergeCompile, EveryBlockMergeOfEveryKernelCompiles) {
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    expect_compiles(kernel.name, test::block_merge_variants(kernel.two_d), true);
    expect_compiles(kernel.name, test::combined_variants(kernel.two_d), true);
  }
}

}  // namespace
}  // namespace gputune::engine

#include <gtest/gtest.h>

#include "engine/engine.h"

namespace gputune::engine {
namespace {

KernelUnit unit(const std::string& text) {
  KernelUnit unit;
  unit.file_name = "saxpy.cu";
  unit.text = text;
  return unit;
}

constexpr const char* kSaxpy = R"(__global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

TEST(LaunchBounds, AddsTheBoundsBeforeTheKernelName) {
  SourceKnobs knobs;
  knobs.launch_bounds = 2;
  knobs.block_threads["saxpy"] = 256;
  const Rewrite rewrite = source_engine().rewrite(unit(kSaxpy), knobs);
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source.substr(0, rewrite.source.find('\n')),
            "__global__ void __launch_bounds__(256, 2) saxpy(float* y, const float* x, float a, "
            "int n) {");
}

TEST(LaunchBounds, ReplacesTheBoundsTheKernelHas) {
  const std::string text =
      "__global__ void __launch_bounds__(1024) saxpy(float* y, float a) { y[0] = a; }\n";
  SourceKnobs knobs;
  knobs.launch_bounds = 4;
  knobs.block_threads["saxpy"] = 128;
  const Rewrite rewrite = source_engine().rewrite(unit(text), knobs);
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source,
            "__global__ void __launch_bounds__(128, 4) saxpy(float* y, float a) { y[0] = a; }\n");
}

TEST(LaunchBounds, RefusesWithoutTheBlockSize) {
  SourceKnobs knobs;
  knobs.launch_bounds = 2;
  const Rewrite rewrite = source_engine().rewrite(unit(kSaxpy), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_NE(rewrite.message.find("saxpy.cu:1:17: launch_bounds:"), std::string::npos)
      << rewrite.message;
}

TEST(Engine, SaysWhereTheKernelDoesNotParse) {
  const Analysis analysis = source_engine().analyse(
      unit("__global__ void k(float* y) {\n  y[0] = undefined_thing;\n}\n"));
  EXPECT_FALSE(analysis.parsed);
  EXPECT_NE(analysis.diagnostics.find("saxpy.cu:2:10: error: use of undeclared identifier "
                                      "'undefined_thing'"),
            std::string::npos)
      << analysis.diagnostics;
  const KnobVerdict* verdict = analysis.find("launch_bounds");
  ASSERT_NE(verdict, nullptr);
  EXPECT_FALSE(verdict->applies);
}

TEST(Engine, NeutralKnobsLeaveTheTextAsItIs) {
  const Rewrite rewrite = source_engine().rewrite(unit(kSaxpy), SourceKnobs{});
  ASSERT_TRUE(rewrite.ok);
  EXPECT_EQ(rewrite.source, kSaxpy);
}

}  // namespace
}  // namespace gputune::engine

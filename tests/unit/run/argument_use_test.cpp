// Arguments used otherwise than declared: an input the baseline changed, an output it left as it
// was prepared (poisoned, or its initial contents).
#include "run/argument_use.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gputune {
namespace {

HostBuffer buffer(const std::string& name, bool output, ScalarType type = ScalarType::kFloat32) {
  HostBuffer b;
  b.shape.name = name;
  b.shape.type = type;
  b.shape.count = 4;
  b.output = output;
  return b;
}

using Bytes = std::vector<unsigned char>;

TEST(UntouchedOutput, IsThePoisonOfItsTypeOrItsInitialContents) {
  EXPECT_EQ(untouched_output(buffer("out", true)), Bytes(16, 0xFF));
  EXPECT_EQ(untouched_output(buffer("out", true, ScalarType::kInt32)), Bytes(16, 0xA5));
  HostBuffer initialised = buffer("out", true);
  initialised.initial.assign(16, 7);
  EXPECT_EQ(untouched_output(initialised), Bytes(16, 7));
  HostBuffer on_gpu = buffer("out", true);
  on_gpu.device_fill = true;
  EXPECT_TRUE(untouched_output(on_gpu).empty());
  EXPECT_TRUE(untouched_output(buffer("in", false)).empty());
}

TEST(MisusedArguments, NamesAChangedInputAndAnUntouchedOutput) {
  const std::vector<HostBuffer> buffers = {buffer("y", true), buffer("x", false),
                                           buffer("w", false)};
  const Bytes poison = untouched_output(buffers[0]);
  const Bytes input(16, 1), written(16, 2);
  EXPECT_EQ(misused_arguments(buffers, {poison, input, input}, {written, input, input}), "");
  const std::string both =
      misused_arguments(buffers, {poison, input, input}, {poison, written, input});
  EXPECT_NE(both.find("changed 'x', declared read-only"), std::string::npos) << both;
  EXPECT_NE(both.find("left 'y', declared an output, untouched"), std::string::npos) << both;
  EXPECT_EQ(both.find("'w'"), std::string::npos) << both;
}

TEST(MisusedArguments, ScratchConstantsAndUnknownContentsAreNotJudged) {
  std::vector<HostBuffer> buffers = {buffer("s", false), buffer("c", false), buffer("o", true)};
  buffers[0].scratch = true;
  buffers[1].constant = true;
  const Bytes a(16, 1), b(16, 2);
  EXPECT_EQ(misused_arguments(buffers, {a, a, {}}, {b, b, a}), "");
}

}  // namespace
}  // namespace gputune

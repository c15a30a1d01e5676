#include "spec/measurement_hash.h"

#include <gtest/gtest.h>

#include "core/hash.h"

namespace gputune {
namespace {

constexpr const char* kSpec = R"(description: a kernel
kernel: {source: k.cu, name: k}
parameters: {TILE: [16, 32], PAD: [0, 1]}
remedies: {padding: [PAD]}
)";

TEST(MeasurementHash, IgnoresRemediesDescriptionSearchAndComments) {
  std::string edited = kSpec;
  edited.replace(edited.find("[PAD]"), 5, "[+PAD]");
  edited.replace(edited.find("a kernel"), 8, "a kernel with a longer description");
  edited += "# a comment\nsearch: {strategy: model, budget: 50}\n";
  EXPECT_NE(stable_hash(edited), stable_hash(kSpec));
  EXPECT_EQ(measurement_hash_of(edited), measurement_hash_of(kSpec));
}

TEST(MeasurementHash, ChangesWithWhatNumbersOrMeasuresTheConfigs) {
  std::string values = kSpec;
  values.replace(values.find("[16, 32]"), 8, "[16, 32, 64]");
  EXPECT_NE(measurement_hash_of(values), measurement_hash_of(kSpec));
  std::string kernel = kSpec;
  kernel.replace(kernel.find("name: k}"), 8, "name: k2}");
  EXPECT_NE(measurement_hash_of(kernel), measurement_hash_of(kSpec));
}

TEST(MeasurementHash, TextThatIsNoMapHashesAsItIs) {
  EXPECT_EQ(measurement_hash_of("[1, 2"), stable_hash("[1, 2"));
  EXPECT_EQ(measurement_hash_of("just text"), stable_hash("just text"));
}

}  // namespace
}  // namespace gputune

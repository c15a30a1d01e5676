#include "search/prior.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gputune {
namespace {

PriorKey identity(const std::vector<std::pair<std::string, int64_t>>& baseline) {
  PriorKey kernel;
  kernel.kernel_name = "k";
  for (const auto& [name, value] : baseline) {
    kernel.parameters.push_back(name);
    kernel.baseline.push_back({name, Value(value)});
  }
  std::sort(kernel.parameters.begin(), kernel.parameters.end());
  return kernel;
}

Measurement measured(const std::string& config) {
  Measurement m;
  m.config = config;
  m.samples_ms = {1};
  return m;
}

TEST(MeasurementsInTermsOf, TheSameParametersAreTakenAsTheyAre) {
  const PriorKey kernel = identity({{"A", 1}, {"B", 0}});
  std::string changes = "?";
  auto out = measurements_in_terms_of(kernel, "k", {"A", "B"}, R"({"A":1,"B":0})",
                                      {measured(R"({"A":2,"B":1})")}, &changes);
  ASSERT_TRUE(out);
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].config, R"({"A":2,"B":1})");
  EXPECT_EQ(changes, "");
  EXPECT_FALSE(measurements_in_terms_of(kernel, "other", {"A", "B"}, "", {}));
}

// A knob added since takes this space's baseline value; of the configs with a knob dropped
// since, those at that version's baseline value stand for the kernel as it is now.
TEST(MeasurementsInTermsOf, AnotherVersionsConfigsAreReadInThisSpacesTerms) {
  const PriorKey kernel = identity({{"A", 1}, {"B", 0}, {"C", 4}, {"E", 0}});
  std::string changes;
  auto out = measurements_in_terms_of(
      kernel, "k", {"A", "B", "C", "D"}, R"({"A":1,"B":0,"C":4,"D":0})",
      {measured(R"({"A":2,"B":1,"C":8,"D":0})"), measured(R"({"A":2,"B":1,"C":8,"D":1})")},
      &changes);
  ASSERT_TRUE(out);
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].config, R"({"A":2,"B":1,"C":8,"E":0})");
  EXPECT_EQ(changes, "+E -D");
}

// Parameters that differ more than they agree: another kernel of the same name.
TEST(MeasurementsInTermsOf, ParametersThatMostlyDifferAreAnotherKernel) {
  const PriorKey kernel = identity({{"A", 1}, {"C", 0}});
  EXPECT_FALSE(measurements_in_terms_of(kernel, "k", {"A", "B", "FAIL"}, "", {}));
  EXPECT_FALSE(measurements_in_terms_of(kernel, "k", {"X", "Y"}, "", {}));
}

}  // namespace
}  // namespace gputune

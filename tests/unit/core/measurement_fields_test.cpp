#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gputune/measurement.h"
#include "support/measurement_fields.h"

namespace gputune {
namespace {

TEST(MeasurementFields, NamesAreDistinct) {
  std::set<std::string> names;
  for (const MeasurementField& field : measurement_fields()) {
    EXPECT_TRUE(names.insert(field.name).second) << field.name;
  }
}

// Two rows on one member, or a row whose kind does not match its member's type, would show here:
// the later write would overwrite the earlier, or of<T>() would throw.
TEST(MeasurementFields, EveryRowReachesItsOwnMember) {
  const Measurement m = testing::every_field_set();
  testing::expect_fields(m, m, testing::every_field);
  EXPECT_EQ(m.status, Status::kWrongAnswer);
  EXPECT_EQ(m.registers, 107);  // the table's 8th row
  EXPECT_EQ(m.message.rfind("message, ", 0), 0u);
}

TEST(MeasurementFields, SpecialKindsComeOnceEach) {
  int special = 0;
  for (const MeasurementField& field : measurement_fields()) {
    special += field.kind == FieldKind::kConfigIndex || field.kind == FieldKind::kConfig ||
               field.kind == FieldKind::kStatus || field.kind == FieldKind::kSamples;
  }
  EXPECT_EQ(special, 4);
}

}  // namespace
}  // namespace gputune

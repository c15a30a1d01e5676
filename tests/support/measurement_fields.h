#pragma once
// Measurements for tests that every field of measurement_fields() survives a format.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gputune/measurement.h"

namespace gputune::testing {

// Every listed field set to a value unlike its default and unlike the other fields'.
inline Measurement every_field_set() {
  Measurement m;
  const auto& fields = measurement_fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    const MeasurementField& field = fields[i];
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        field.of<uint64_t>(m) = (uint64_t{1} << 40) + i;
        break;
      case FieldKind::kConfig:
        field.of<std::string>(m) = R"({"TILE":32,"order":"a, \"quoted\" value"})";
        break;
      case FieldKind::kStatus:
        field.of<Status>(m) = Status::kWrongAnswer;
        break;
      case FieldKind::kSamples:
        field.of<std::vector<double>>(m) = {0.1, 1.0 / 3.0, 2.5};
        break;
      case FieldKind::kReal:
        field.of<double>(m) = 1.25 + static_cast<double>(i) / 7.0;
        break;
      case FieldKind::kInteger:
        field.of<int>(m) = 100 + static_cast<int>(i);
        break;
      case FieldKind::kText:
        field.of<std::string>(m) = std::string(field.name) + ", with \"quotes\"\nand a new line";
        break;
    }
  }
  return m;
}

// Expects `actual` to hold `expected`'s value in every field that `carried` accepts and, in the
// others, what a reader without the field gives (a real's `missing`, else the default).
template <typename Carried>
void expect_fields(const Measurement& expected, const Measurement& actual, Carried carried) {
  const Measurement blank;
  for (const MeasurementField& field : measurement_fields()) {
    const bool kept = carried(field);
    const Measurement& want = kept ? expected : blank;
    SCOPED_TRACE(std::string("field ") + field.name + (kept ? "" : " (not carried)"));
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        EXPECT_EQ(field.of<uint64_t>(actual), field.of<uint64_t>(want));
        break;
      case FieldKind::kConfig:
      case FieldKind::kText:
        EXPECT_EQ(field.of<std::string>(actual), field.of<std::string>(want));
        break;
      case FieldKind::kStatus:
        EXPECT_EQ(field.of<Status>(actual), field.of<Status>(want));
        break;
      case FieldKind::kSamples:
        EXPECT_EQ(field.of<std::vector<double>>(actual), field.of<std::vector<double>>(want));
        break;
      case FieldKind::kReal:
        if (kept) {
          EXPECT_EQ(field.of<double>(actual), field.of<double>(want));
        } else if (std::isnan(field.missing)) {
          EXPECT_TRUE(std::isnan(field.of<double>(actual)));
        } else {
          EXPECT_EQ(field.of<double>(actual), field.missing);
        }
        break;
      case FieldKind::kInteger:
        EXPECT_EQ(field.of<int>(actual), field.of<int>(want));
        break;
    }
  }
}

inline bool every_field(const MeasurementField&) { return true; }

}  // namespace gputune::testing

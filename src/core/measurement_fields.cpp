#include <limits>

#include "gputune/measurement.h"

namespace gputune {

const std::vector<MeasurementField>& measurement_fields() {
  using M = Measurement;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  static const std::vector<MeasurementField> fields = {
      {"config_index", FieldKind::kConfigIndex, &M::config_index},
      {"config", FieldKind::kConfig, &M::config},
      {"status", FieldKind::kStatus, &M::status},
      {"samples", FieldKind::kSamples, &M::samples_ms},
      {"compile_ms", FieldKind::kReal, &M::compile_ms, true, true, kNaN},
      // Added with schema 2: older rows read as 0. Recordings and reports never held them.
      {"check_ms", FieldKind::kReal, &M::check_ms, false, false},
      {"time_ms", FieldKind::kReal, &M::time_ms, false, false},
      {"registers", FieldKind::kInteger, &M::registers},
      {"shared_bytes", FieldKind::kInteger, &M::shared_bytes},
      {"spill_bytes", FieldKind::kInteger, &M::spill_bytes},
      {"message", FieldKind::kText, &M::message},
      // Added with schema 3: older rows read as "". Recordings never held it.
      {"compiler_warnings", FieldKind::kText, &M::compiler_warnings, false, true},
      // Added with schema 4: older rows read as 0. Recordings and reports never held it.
      {"gpu_busy_ms", FieldKind::kReal, &M::gpu_busy_ms, false, false},
      // Added with schema 6 (racing): older rows and recordings read as 0, a full measurement.
      {"cut_short", FieldKind::kInteger, &M::cut_short, true, true, 0, true},
      {"final_rounds", FieldKind::kInteger, &M::final_rounds, true, true, 0, true},
  };
  return fields;
}

}  // namespace gputune

#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "gputune/status.h"

namespace gputune {

struct Measurement {
  uint64_t config_index = 0;
  std::string config;  // the parameter values as a JSON object, for people and tools
  Status status = Status::kOk;
  std::vector<double> samples_ms;  // every timed sample, not only the summary
  double compile_ms = 0;
  double check_ms = 0;  // the checked run: load, launch, compare with the reference
  double time_ms = 0;   // warm-up and timed samples
  int registers = 0, shared_bytes = 0, spill_bytes = 0;
  std::string message;  // NVRTC log, checker diff, CUDA error name, ...
  // What the compiler warned about in a compile that succeeded ("" when nothing): its log
  // without ptxas's resource report.
  std::string compiler_warnings;
  // GPU time of the variant's own launches (checked run, warm-up, samples), from events around
  // them: what the search's GPU idle share counts as busy.
  double gpu_busy_ms = 0;
  // 1 when racing stopped the timing early: the samples show the variant cannot come within
  // the margin of the best so far. Its median is honest for its samples, but it is never
  // ranked as a full measurement.
  int cut_short = 0;
  // The rounds of the final interleaved re-measurement of the top few these samples come
  // from; 0 for a measurement of the search itself.
  int final_rounds = 0;

  double median_ms() const;  // NaN without samples
  double spread() const;     // (p90 - p10) / median; 0 with fewer than 2 samples
};

// How a field is written: the first four each format writes its own way (the config as a JSON
// object, samples with their median and spread, ...), the last three as plain scalars.
enum class FieldKind { kConfigIndex, kConfig, kStatus, kSamples, kReal, kInteger, kText };

// One field of Measurement. The store's columns, recordings, worker IPC, the report's JSON and
// Python's dicts all walk measurement_fields(), so that a new field is a member above, a row in
// the table (src/core/measurement_fields.cpp) and a store migration.
struct MeasurementField {
  const char* name;  // the store column, recording column, report and Python key of a scalar
  FieldKind kind;
  std::variant<uint64_t Measurement::*, std::string Measurement::*, Status Measurement::*,
               std::vector<double> Measurement::*, double Measurement::*, int Measurement::*>
      member;
  bool in_recording = true;  // recordings (format v1) hold only the fields they always held
  bool in_report = true;
  // A real's value where an older database row or recording has none (NULL, no column).
  double missing = 0;
  // An integer written to a recording only when some row holds a value other than 0, so that
  // recordings from before it write back byte for byte.
  bool recorded_when_set = false;

  template <typename T>
  T& of(Measurement& m) const {
    return m.*std::get<T Measurement::*>(member);
  }
  template <typename T>
  const T& of(const Measurement& m) const {
    return m.*std::get<T Measurement::*>(member);
  }
};

// Every field of Measurement, in the order of the struct.
const std::vector<MeasurementField>& measurement_fields();

}  // namespace gputune

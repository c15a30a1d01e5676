#include "store/measurement_rows.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "core/config_codec.h"
#include "gputune/error.h"
#include "gputune/status.h"

namespace gputune {
namespace {

std::string samples_to_json(const std::vector<double>& samples) {
  nlohmann::json array = nlohmann::json::array();
  for (double s : samples) array.push_back(s);
  return array.dump();
}

std::vector<double> samples_from_json(const std::string& text, const std::string& path) {
  std::vector<double> samples;
  try {
    nlohmann::json array = nlohmann::json::parse(text);
    for (const auto& s : array) {
      // JSON has no NaN or infinity: dump() wrote them as null.
      samples.push_back(s.is_null() ? std::numeric_limits<double>::quiet_NaN() : s.get<double>());
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::kDb, path + ": corrupt samples_json: " + e.what());
  }
  return samples;
}

// The measurements table's columns that commit() writes after variant_id: every field but the
// variant's own (index and config), and the samples' median and spread beside them.
std::vector<std::string> measurement_insert_columns() {
  std::vector<std::string> out;
  for (const MeasurementField& field : measurement_fields()) {
    if (field.kind == FieldKind::kConfigIndex || field.kind == FieldKind::kConfig) continue;
    if (field.kind == FieldKind::kSamples) {
      out.insert(out.end(), {"samples_json", "median_ms", "spread"});
    } else {
      out.push_back(field.name);
    }
  }
  return out;
}

}  // namespace

const std::string& stored_json_object(const std::string& text, const std::string& path,
                                      const std::string& what) {
  if (!config_from_json(text)) {
    constexpr size_t kShown = 60;
    throw Error(ErrorCode::kDb, path + ": " + what + " (not a JSON object): " +
                                    (text.size() > kShown ? text.substr(0, kShown) + "..." : text));
  }
  return text;
}

std::string measurement_columns() {
  std::string out;
  for (const MeasurementField& field : measurement_fields()) {
    if (!out.empty()) out += ", ";
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        out += "v.config_index";
        break;
      case FieldKind::kConfig:
        out += "v.config_json";
        break;
      case FieldKind::kSamples:
        out += "m.samples_json";
        break;
      default:
        out += std::string("m.") + field.name;
    }
  }
  return out;
}

std::string measurement_insert_sql() {
  std::string columns = "variant_id", values = "?1";
  int parameter = 1;
  for (const std::string& column : measurement_insert_columns()) {
    columns += ", " + column;
    values += ", ?" + std::to_string(++parameter);
  }
  return "INSERT INTO measurements (" + columns + ") VALUES (" + values + ")";
}

Measurement read_measurement(const sqlite::Statement& s, int first, const std::string& path) {
  Measurement m;
  int column = first;
  for (const MeasurementField& field : measurement_fields()) {
    const int c = column++;
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        field.of<uint64_t>(m) = from_db(s.int64(c));
        break;
      case FieldKind::kConfig:
        // Empty until a measurement fills it (store_counters of a config measured later).
        field.of<std::string>(m) = s.text(c);
        if (!m.config.empty())
          stored_json_object(m.config, path, "config " + std::to_string(m.config_index));
        break;
      case FieldKind::kText:
        field.of<std::string>(m) = s.text(c);
        break;
      case FieldKind::kStatus:
        field.of<Status>(m) = status_from_name(s.text(c));
        break;
      case FieldKind::kSamples:
        field.of<std::vector<double>>(m) = samples_from_json(s.text(c), path);
        break;
      case FieldKind::kReal:
        field.of<double>(m) = s.is_null(c) ? field.missing : s.real(c);
        break;
      case FieldKind::kInteger:
        field.of<int>(m) = s.integer(c);
        break;
    }
  }
  return m;
}

void bind_measurement(sqlite::Statement& s, const Measurement& m) {
  int parameter = 1;
  for (const MeasurementField& field : measurement_fields()) {
    switch (field.kind) {
      case FieldKind::kConfigIndex:
      case FieldKind::kConfig:
        break;
      case FieldKind::kStatus:
        s.bind(++parameter, std::string(status_name(field.of<Status>(m))));
        break;
      case FieldKind::kSamples:
        s.bind(++parameter, samples_to_json(field.of<std::vector<double>>(m)));
        s.bind(++parameter, m.median_ms());
        s.bind(++parameter, m.spread());
        break;
      case FieldKind::kReal:
        s.bind(++parameter, field.of<double>(m));
        break;
      case FieldKind::kInteger:
        s.bind(++parameter, field.of<int>(m));
        break;
      case FieldKind::kText:
        s.bind(++parameter, field.of<std::string>(m));
        break;
    }
  }
}

}  // namespace gputune

#include "replay/recording.h"
#include <algorithm>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/exact_text.h"
#include "core/files.h"
#include "core/text.h"
#include "gputune/error.h"
#include "spec/measurement_hash.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMagic = "# gputune recording v1";
// Derived from the samples, written for people and tools, ignored on reading.
constexpr const char* kMedianColumn = "median_ms";
// The side section of hardware counters, after the measurements' rows.
constexpr const char* kCountersMarker = "# counters";
constexpr const char* kCountersHeader = "config_index,source,profile_s,metric,value";

// The columns of a field in a recording: the samples come with their median first.
std::vector<std::string> field_columns(const MeasurementField& field) {
  if (field.kind == FieldKind::kSamples) return {kMedianColumn, field.name};
  return {field.name};
}

// Whether a recording of `measurements` has a column for `field`: a field written only when set
// gets one when some measurement holds a value other than 0.
bool written(const MeasurementField& field, const std::vector<Measurement>* measurements) {
  if (!field.in_recording) return false;
  if (!field.recorded_when_set || measurements == nullptr) return true;
  return std::any_of(measurements->begin(), measurements->end(),
                     [&](const Measurement& m) { return field.of<int>(m) != 0; });
}

// The column header; with `measurements`, of a recording of them (else every column).
std::string header(const std::vector<Measurement>* measurements = nullptr) {
  std::string out;
  for (const MeasurementField& field : measurement_fields()) {
    if (!written(field, measurements)) continue;
    for (const std::string& column : field_columns(field)) {
      out += (out.empty() ? "" : ",") + column;
    }
  }
  return out;
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

[[noreturn]] void bad(const std::string& path, int line, const std::string& what) {
  throw Error(ErrorCode::kIo, path + ":" + std::to_string(line) + ": " + what);
}

// A recording's text becomes stored text and JSON, which is UTF-8.
void check_utf8(const std::string& text, const std::string& path, int line) {
  if (first_invalid_utf8(text) != std::string::npos) {
    bad(path, line, "not UTF-8 text; a recording is written in UTF-8");
  }
}

// One CSV record, which may span lines inside quotes; false at the end of the input.
bool read_record(std::istream& in, const std::string& path, int* line,
                 std::vector<std::string>* fields) {
  fields->clear();
  if (in.peek() == EOF) return false;
  std::string field;
  bool quoted = false;
  const int start = *line;
  for (int c = in.get();; c = in.get()) {
    if (c == EOF) {
      if (quoted) bad(path, start, "a quoted field is not closed");
      break;
    }
    if (quoted) {
      if (c == '"') {
        if (in.peek() == '"') {
          field += static_cast<char>(in.get());
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++*line;
        field += static_cast<char>(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields->push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      ++*line;
      break;
    } else if (c != '\r') {
      field += static_cast<char>(c);
    }
  }
  fields->push_back(std::move(field));
  return true;
}

double to_double(const std::string& text, const std::string& path, int line) {
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE) {
    bad(path, line, "expected a number, got '" + text + "'");
  }
  return v;
}

int64_t to_int(const std::string& text, const std::string& path, int line) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) {
    bad(path, line, "expected an integer, got '" + text + "'");
  }
  return v;
}

std::string samples_text(const std::vector<double>& samples) {
  std::string out;
  for (double s : samples) out += (out.empty() ? "" : ";") + exact_text(s);
  return out;
}

std::string row(const Measurement& m, const std::vector<Measurement>& all) {
  std::string out;
  const auto cell = [&](const std::string& text) { out += (out.empty() ? "" : ",") + text; };
  for (const MeasurementField& field : measurement_fields()) {
    if (!written(field, &all)) continue;
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        cell(std::to_string(field.of<uint64_t>(m)));
        break;
      case FieldKind::kConfig:
      case FieldKind::kText:
        cell(csv_field(field.of<std::string>(m)));
        break;
      case FieldKind::kStatus:
        cell(status_name(field.of<Status>(m)));
        break;
      case FieldKind::kSamples: {
        const double median = m.median_ms();
        cell(std::isnan(median) ? "" : exact_text(median));
        cell(samples_text(field.of<std::vector<double>>(m)));
        break;
      }
      case FieldKind::kReal:
        cell(exact_text(field.of<double>(m)));
        break;
      case FieldKind::kInteger:
        cell(std::to_string(field.of<int>(m)));
        break;
    }
  }
  return out;
}

// Which field each column of a recording's header holds; null for the median.
std::vector<const MeasurementField*> read_header(const std::string& text, const std::string& path,
                                                 int line) {
  std::map<std::string, const MeasurementField*> known = {{kMedianColumn, nullptr}};
  for (const MeasurementField& field : measurement_fields()) known[field.name] = &field;
  std::vector<const MeasurementField*> columns;
  std::map<std::string, int> seen;
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ',');) {
    auto found = known.find(name);
    if (found == known.end() || seen[name]++ > 0) {
      bad(path, line, "expected the column header '" + header() + "'");
    }
    columns.push_back(found->second);
  }
  if (!seen.count("config_index") || !seen.count("status")) {
    bad(path, line, "expected the column header '" + header() + "'");
  }
  return columns;
}

void read_field(const MeasurementField& field, const std::string& text, const std::string& path,
                int line, Measurement* m) {
  switch (field.kind) {
    case FieldKind::kConfigIndex:
      field.of<uint64_t>(*m) = static_cast<uint64_t>(to_int(text, path, line));
      break;
    case FieldKind::kConfig:
    case FieldKind::kText:
      field.of<std::string>(*m) = text;
      break;
    case FieldKind::kStatus:
      try {
        field.of<Status>(*m) = status_from_name(text);
      } catch (const Error& e) {
        bad(path, line, e.what());
      }
      break;
    case FieldKind::kSamples: {
      std::stringstream samples(text);
      for (std::string s; std::getline(samples, s, ';');) {
        field.of<std::vector<double>>(*m).push_back(to_double(s, path, line));
      }
      break;
    }
    case FieldKind::kReal:
      field.of<double>(*m) = to_double(text, path, line);
      break;
    case FieldKind::kInteger: {
      const int64_t value = to_int(text, path, line);
      if (value < INT32_MIN || value > INT32_MAX) {
        bad(path, line, std::string(field.name) + " " + text + " is out of range");
      }
      field.of<int>(*m) = static_cast<int>(value);
      break;
    }
  }
}

// What a row may say: samples are times a kernel ran, positive and finite; the rest is no less
// than zero.
void check_measurement(const Measurement& m, const std::string& path, int line) {
  for (const double sample : m.samples_ms) {
    if (!std::isfinite(sample) || sample <= 0) {
      bad(path, line,
          "a sample of " + exact_text(sample) +
              " ms; expected samples that are positive and finite");
    }
  }
  for (const MeasurementField& field : measurement_fields()) {
    if (field.kind == FieldKind::kReal) {
      const double value = field.of<double>(m);
      if (!std::isnan(value) && (!std::isfinite(value) || value < 0)) {
        bad(path, line,
            std::string(field.name) + " is " + exact_text(value) +
                "; expected a finite number, at least 0");
      }
    }
    if (field.kind == FieldKind::kInteger && field.of<int>(m) < 0) {
      bad(path, line, std::string(field.name) + " is negative");
    }
  }
}

// A measurement before its row is read: every real the header leaves out at its `missing`.
Measurement blank_measurement() {
  Measurement m;
  for (const MeasurementField& field : measurement_fields()) {
    if (field.kind == FieldKind::kReal) field.of<double>(m) = field.missing;
  }
  return m;
}

// The counters section, after its marker line: its header, then one row per metric.
void read_counters(std::istream& in, const std::string& path, int* line,
                   std::map<uint64_t, StoredCounters>* counters) {
  std::vector<std::string> fields;
  const int header_line = *line;
  if (!read_record(in, path, line, &fields) || fields.size() != 5 || fields[0] != "config_index" ||
      fields[3] != "metric") {
    bad(path, header_line, std::string("expected the counters header '") + kCountersHeader + "'");
  }
  for (int at = *line; read_record(in, path, line, &fields); at = *line) {
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (fields.size() != 5) {
      bad(path, at,
          "expected 5 counter fields (" + std::string(kCountersHeader) + "), got " +
              std::to_string(fields.size()));
    }
    for (const std::string& field : fields) check_utf8(field, path, at);
    StoredCounters& c = (*counters)[static_cast<uint64_t>(to_int(fields[0], path, at))];
    c.source = fields[1];
    c.wall_s = to_double(fields[2], path, at);
    c.values[fields[3]] = to_double(fields[4], path, at);
  }
}

}  // namespace

Recording recording_from_store(const Store& store, int64_t workload, const std::string& repo_root) {
  Recording recording;
  RecordingInfo& info = recording.info;
  bool found = false;
  for (const auto& summary : store.workloads()) {
    if (summary.id != workload) continue;
    found = true;
    const WorkloadKey& key = summary.key;
    info.spec_hash = key.spec_hash;
    if (!key.spec_text.empty()) info.measurement_hash = measurement_hash_of(key.spec_text);
    info.source_hash = key.source_hash;
    info.kernel_name = key.kernel_name;
    info.problem_json = key.problem_json;
    info.device = key.device;
    info.nvrtc_version = key.nvrtc_version;
    info.baseline_index = summary.baseline_index;
    info.spec_path = key.spec_path;
    std::error_code error;
    fs::path spec = fs::weakly_canonical(fs::absolute(key.spec_path), error);
    fs::path root = fs::weakly_canonical(fs::absolute(repo_root, error), error);
    if (!repo_root.empty() && !error) {
      fs::path relative = spec.lexically_relative(root);
      if (!relative.empty() && *relative.begin() != "..") info.spec_path = relative.string();
    }
  }
  if (!found) {
    throw Error(ErrorCode::kUsage, "no workload " + std::to_string(workload) + " in the store");
  }
  info.copy_bandwidth_gbs = store.copy_bandwidth(info.device).value_or(0);
  info.recorded_at = utc_now();
  recording.measurements = store.measured(workload);
  recording.counters = store.all_counters(workload);
  return recording;
}

void write_recording(const Recording& recording, const std::string& path) {
  const RecordingInfo& info = recording.info;
  std::ostringstream out;
  out << kMagic << "\n";
  auto meta = [&](const char* key, const std::string& value) {
    if (value.find('\n') != std::string::npos) {
      throw Error(ErrorCode::kUsage,
                  std::string("recording metadata '") + key + "' cannot hold a line break");
    }
    out << "# " << key << ": " << value << "\n";
  };
  meta("origin", info.origin);
  meta("spec_path", info.spec_path);
  meta("spec_hash", info.spec_hash);
  if (!info.measurement_hash.empty()) meta("measurement_hash", info.measurement_hash);
  meta("source_hash", info.source_hash);
  meta("kernel_name", info.kernel_name);
  meta("problem", info.problem_json);
  meta("gpu", info.device.name);
  meta("gpu_uuid", info.device.uuid);
  meta("compute_capability",
       std::to_string(info.device.cc_major) + "." + std::to_string(info.device.cc_minor));
  meta("sm_count", std::to_string(info.device.sm_count));
  meta("l2_bytes", std::to_string(info.device.l2_bytes));
  meta("memory_bytes", std::to_string(info.device.memory_bytes));
  meta("driver", std::to_string(info.device.driver_version));
  meta("nvrtc", info.nvrtc_version);
  meta("baseline_index", std::to_string(info.baseline_index));
  meta("copy_bandwidth_gbs", exact_text(info.copy_bandwidth_gbs));
  meta("recorded_at", info.recorded_at);
  meta("commit", info.commit);
  out << header(&recording.measurements) << "\n";
  for (const Measurement& m : recording.measurements) out << row(m, recording.measurements) << "\n";
  if (!recording.counters.empty()) {
    out << kCountersMarker << "\n" << kCountersHeader << "\n";
    for (const auto& [index, counters] : recording.counters) {
      for (const auto& [metric, value] : counters.values) {
        out << index << "," << csv_field(counters.source) << "," << exact_text(counters.wall_s)
            << "," << csv_field(metric) << "," << exact_text(value) << "\n";
      }
    }
  }
  // Written beside, synced and renamed, so a reader (or a crash) never leaves half a recording.
  write_file_atomically(path, out.str());
}

void export_recording(const Store& store, int64_t workload, const std::string& path,
                      const std::string& commit, const std::string& repo_root) {
  Recording recording = recording_from_store(store, workload, repo_root);
  recording.info.commit = commit;
  write_recording(recording, path);
}

Recording load_recording(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, path + ": cannot be read");
  return read_recording(in, path);
}

Recording read_recording(std::istream& in, const std::string& path) {
  Recording recording;
  RecordingInfo& info = recording.info;
  std::map<std::string, std::string> meta;
  std::string text;
  int line = 1;
  if (!std::getline(in, text) || text != kMagic) {
    bad(path, 1, std::string("expected '") + kMagic + "': not a gputune recording");
  }
  while (in.peek() == '#') {
    ++line;
    std::getline(in, text);
    check_utf8(text, path, line);
    size_t colon = text.find(": ");
    if (text.size() < 2 || text[1] != ' ' || colon == std::string::npos) {
      bad(path, line, "expected '# key: value'");
    }
    meta[text.substr(2, colon - 2)] = text.substr(colon + 2);
  }
  auto get = [&](const char* key) {
    auto found = meta.find(key);
    return found == meta.end() ? std::string() : found->second;
  };
  // A device field read as a number within what any GPU has: a recording's numbers become a
  // device's description, its occupancy and the workload it is stored as.
  auto get_int = [&](const char* key, int64_t most) {
    std::string v = get(key);
    const int64_t number = v.empty() ? 0 : to_int(v, path, 1);
    if (number < 0 || number > most) {
      bad(path, 1,
          std::string("'") + key + ": " + v + "' is out of range; expected 0 to " +
              std::to_string(most));
    }
    return number;
  };
  info.origin = get("origin");
  info.spec_path = get("spec_path");
  info.spec_hash = get("spec_hash");
  info.measurement_hash = get("measurement_hash");
  info.source_hash = get("source_hash");
  info.kernel_name = get("kernel_name");
  info.problem_json = get("problem");
  info.device.name = get("gpu");
  info.device.uuid = get("gpu_uuid");
  std::string cc = get("compute_capability");
  if (size_t dot = cc.find('.'); dot != std::string::npos) {
    const int64_t major = to_int(cc.substr(0, dot), path, 1);
    const int64_t minor = to_int(cc.substr(dot + 1), path, 1);
    if (major < 0 || major > 99 || minor < 0 || minor > 9) {
      bad(path, 1,
          "'compute_capability: " + cc +
              "' is no compute capability; expected such "
              "as 9.0");
    }
    info.device.cc_major = static_cast<int>(major);
    info.device.cc_minor = static_cast<int>(minor);
  }
  constexpr int64_t kMostBytes = int64_t{1} << 50;  // a petabyte: no GPU's memory or cache
  info.device.sm_count = static_cast<int>(get_int("sm_count", 100000));
  info.device.l2_bytes = get_int("l2_bytes", kMostBytes);
  info.device.memory_bytes = get_int("memory_bytes", kMostBytes);
  info.device.driver_version = static_cast<int>(get_int("driver", 1000000000));
  info.nvrtc_version = get("nvrtc");
  info.baseline_index = static_cast<uint64_t>(get_int("baseline_index", INT64_MAX));
  std::string bandwidth = get("copy_bandwidth_gbs");
  info.copy_bandwidth_gbs = bandwidth.empty() ? 0 : to_double(bandwidth, path, 1);
  if (!std::isfinite(info.copy_bandwidth_gbs) || info.copy_bandwidth_gbs < 0) {
    bad(path, 1, "'copy_bandwidth_gbs: " + bandwidth + "' is not a bandwidth (GB/s, at least 0)");
  }
  info.recorded_at = get("recorded_at");
  info.commit = get("commit");
  if (info.spec_path.empty()) bad(path, 1, "the metadata names no spec_path");

  ++line;
  if (!std::getline(in, text)) {
    bad(path, line, "expected the column header '" + header() + "'");
  }
  const std::vector<const MeasurementField*> columns = read_header(text, path, line);
  ++line;
  std::vector<std::string> fields;
  for (int at = line; read_record(in, path, &line, &fields); at = line) {
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (fields.size() == 1 && fields[0] == kCountersMarker) {
      read_counters(in, path, &line, &recording.counters);
      break;
    }
    if (fields.size() != columns.size()) {
      bad(path, at,
          "expected " + std::to_string(columns.size()) + " fields, got " +
              std::to_string(fields.size()));
    }
    for (const std::string& field : fields) check_utf8(field, path, at);
    Measurement m = blank_measurement();
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c]) read_field(*columns[c], fields[c], path, at, &m);
    }
    check_measurement(m, path, at);
    recording.measurements.push_back(std::move(m));
  }
  return recording;
}

namespace {
std::string file_part(std::string text) {
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  std::string out;
  for (char c : text) {
    if (c != '_' || (!out.empty() && out.back() != '_')) out += c;
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}
}  // namespace

std::string recording_file_name(const WorkloadKey& key) {
  return file_part(std::filesystem::path(key.spec_path).stem().string()) + "_" +
         file_part(key.problem_json) + "_" + file_part(key.device.name) + ".csv";
}

}  // namespace gputune

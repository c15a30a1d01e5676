#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "core/exact_text.h"
#include "gputune/error.h"
#include "replay/replay.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMagic = "# gputune recording v1";
constexpr const char* kColumns =
    "config_index,config,status,median_ms,samples,compile_ms,registers,shared_bytes,"
    "spill_bytes,message";

std::string root_or_default(const std::string& repo_root) {
  return repo_root.empty() ? std::string(GPUTUNE_SOURCE_DIR) : repo_root;
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

class ReplayRunner : public Runner {
 public:
  explicit ReplayRunner(Recording recording) : info_(std::move(recording.info)) {
    for (auto& m : recording.measurements) {
      by_index_[m.config_index] = std::move(m);
    }
  }

  const DeviceInfo& device() const override { return info_.device; }

  Measurement set_reference(const Candidate& baseline) override { return answer(baseline); }

  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    std::vector<Measurement> out;
    out.reserve(batch.size());
    for (const auto& c : batch) out.push_back(answer(c));
    return out;
  }

  double measure_copy_bandwidth() override { return info_.copy_bandwidth_gbs; }

 private:
  Measurement answer(const Candidate& c) const {
    auto found = by_index_.find(c.variant.index);
    if (found != by_index_.end()) return found->second;
    Measurement m;
    m.config_index = c.variant.index;
    m.config = c.variant.config;
    m.status = Status::kRuntimeError;
    m.message = "not in the recording";
    return m;
  }

  RecordingInfo info_;
  std::unordered_map<uint64_t, Measurement> by_index_;
};

class ReplayCompiler : public Compiler {
 public:
  CompiledKernel compile(const CompileRequest& request) override {
    CompiledKernel kernel;
    kernel.ok = true;
    kernel.lowered_names = request.kernel_name_expressions;
    return kernel;
  }
};

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
    info.source_hash = key.source_hash;
    info.kernel_name = key.kernel_name;
    info.problem_json = key.problem_json;
    info.device = key.device;
    info.nvrtc_version = key.nvrtc_version;
    info.baseline_index = summary.baseline_index;
    info.spec_path = key.spec_path;
    std::error_code error;
    fs::path spec = fs::weakly_canonical(fs::absolute(key.spec_path), error);
    fs::path root = fs::weakly_canonical(fs::absolute(root_or_default(repo_root)), error);
    if (!error) {
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
  out << kColumns << "\n";
  for (const Measurement& m : recording.measurements) {
    std::string samples;
    for (double s : m.samples_ms) samples += (samples.empty() ? "" : ";") + exact_text(s);
    double median = m.median_ms();
    out << m.config_index << ',' << csv_field(m.config) << ',' << status_name(m.status) << ','
        << (std::isnan(median) ? "" : exact_text(median)) << ',' << samples << ','
        << exact_text(m.compile_ms) << ',' << m.registers << ',' << m.shared_bytes << ','
        << m.spill_bytes << ',' << csv_field(m.message) << "\n";
  }
  // Written beside, then renamed, so a reader never sees half a recording.
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary);
    if (!file) throw Error(ErrorCode::kIo, temporary + ": cannot be written");
    file << out.str();
    if (!file.flush()) throw Error(ErrorCode::kIo, temporary + ": write failed");
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) throw Error(ErrorCode::kIo, path + ": " + error.message());
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
  auto get_int = [&](const char* key) {
    std::string v = get(key);
    return v.empty() ? 0 : to_int(v, path, 1);
  };
  info.origin = get("origin");
  info.spec_path = get("spec_path");
  info.spec_hash = get("spec_hash");
  info.source_hash = get("source_hash");
  info.kernel_name = get("kernel_name");
  info.problem_json = get("problem");
  info.device.name = get("gpu");
  info.device.uuid = get("gpu_uuid");
  std::string cc = get("compute_capability");
  if (size_t dot = cc.find('.'); dot != std::string::npos) {
    info.device.cc_major = static_cast<int>(to_int(cc.substr(0, dot), path, 1));
    info.device.cc_minor = static_cast<int>(to_int(cc.substr(dot + 1), path, 1));
  }
  info.device.sm_count = static_cast<int>(get_int("sm_count"));
  info.device.l2_bytes = get_int("l2_bytes");
  info.device.memory_bytes = get_int("memory_bytes");
  info.device.driver_version = static_cast<int>(get_int("driver"));
  info.nvrtc_version = get("nvrtc");
  info.baseline_index = static_cast<uint64_t>(get_int("baseline_index"));
  std::string bandwidth = get("copy_bandwidth_gbs");
  info.copy_bandwidth_gbs = bandwidth.empty() ? 0 : to_double(bandwidth, path, 1);
  info.recorded_at = get("recorded_at");
  info.commit = get("commit");
  if (info.spec_path.empty()) bad(path, 1, "the metadata names no spec_path");

  ++line;
  if (!std::getline(in, text) || text != kColumns) {
    bad(path, line, std::string("expected the column header '") + kColumns + "'");
  }
  ++line;
  std::vector<std::string> fields;
  for (int at = line; read_record(in, path, &line, &fields); at = line) {
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (fields.size() != 10) {
      bad(path, at, "expected 10 fields, got " + std::to_string(fields.size()));
    }
    Measurement m;
    m.config_index = static_cast<uint64_t>(to_int(fields[0], path, at));
    m.config = fields[1];
    try {
      m.status = status_from_name(fields[2]);
    } catch (const Error& e) {
      bad(path, at, e.what());
    }
    std::stringstream samples(fields[4]);
    for (std::string s; std::getline(samples, s, ';');) {
      m.samples_ms.push_back(to_double(s, path, at));
    }
    m.compile_ms = to_double(fields[5], path, at);
    m.registers = static_cast<int>(to_int(fields[6], path, at));
    m.shared_bytes = static_cast<int>(to_int(fields[7], path, at));
    m.spill_bytes = static_cast<int>(to_int(fields[8], path, at));
    m.message = fields[9];
    recording.measurements.push_back(std::move(m));
  }
  return recording;
}

Problem recording_problem(const Recording& recording, const std::string& repo_root,
                          bool allow_changed_spec) {
  const RecordingInfo& info = recording.info;
  fs::path spec_path = fs::path(info.spec_path).is_absolute()
                           ? fs::path(info.spec_path)
                           : fs::path(root_or_default(repo_root)) / info.spec_path;
  Overrides overrides;
  if (!info.problem_json.empty()) {
    nlohmann::json problem;
    try {
      problem = nlohmann::json::parse(info.problem_json);
    } catch (const nlohmann::json::exception& e) {
      throw Error(ErrorCode::kIo,
                  "recording problem values '" + info.problem_json + "' are not JSON: " + e.what());
    }
    for (const auto& [name, value] : problem.items()) {
      overrides.push_back({name, value.is_string() ? value.get<std::string>() : value.dump()});
    }
  }
  Spec spec = load_spec(spec_path.string(), overrides);
  if (!allow_changed_spec && !info.spec_hash.empty() &&
      (spec.spec_hash() != info.spec_hash ||
       (!info.source_hash.empty() && spec.source_hash() != info.source_hash))) {
    throw Error(ErrorCode::kUsage, spec_path.string() +
                                       ": the spec or its kernel changed since the recording "
                                       "was made, so its config indices may not match");
  }
  return Problem(std::move(spec));
}

std::unique_ptr<Runner> make_replay_runner(Recording recording) {
  return std::make_unique<ReplayRunner>(std::move(recording));
}

std::unique_ptr<Runner> make_replay_runner(const Store& store, int64_t workload) {
  return make_replay_runner(recording_from_store(store, workload));
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

std::unique_ptr<Compiler> make_replay_compiler() { return std::make_unique<ReplayCompiler>(); }

}  // namespace gputune

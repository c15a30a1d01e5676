#include "session/kernel_tuner_results.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/config_codec.h"
#include "core/exact_text.h"
#include "core/text.h"
#include "gputune/error.h"
#include "gputune/session.h"

namespace gputune {
namespace {

using json = nlohmann::json;

[[noreturn]] void refuse(const std::string& file, const std::string& what) {
  throw Error(ErrorCode::kSpec, file + ": " + what);
}

struct Entry {
  std::string device;
  std::string where;  // "cache/32,1", "NVIDIA-H100/65536/0"
  const json* result;
};

std::string text_member(const json& object, const char* key, const std::string& fallback,
                        const std::string& file) {
  if (!object.contains(key)) return fallback;
  const json& value = object.at(key);
  if (!value.is_string()) {
    refuse(file, std::string("'") + key + "' must be a string, got " + value.type_name());
  }
  return value.get<std::string>();
}

// A result's number field: absent is `fallback`; else a finite number at least `least`.
double number_member(const json& result, const char* key, double fallback, double least,
                     const Entry& entry, const std::string& file) {
  if (!result.contains(key)) return fallback;
  const json& value = result.at(key);
  const double number = value.is_number() ? value.get<double>() : NAN;
  if (!std::isfinite(number) || number < least) {
    refuse(file, entry.where + ": '" + key + "' must be a number of at least " +
                     std::to_string(static_cast<int>(least)) + ", got " + value.dump());
  }
  return number;
}

// The numbers of a problem size as Kernel Tuner writes it: [4096, 2048], 4096, or a
// store_results key such as "4096" or "(4096, 2048)".
std::multiset<double> sizes_of(const json& size) {
  std::multiset<double> out;
  if (size.is_number()) out.insert(size.get<double>());
  if (size.is_array()) {
    for (const json& v : size) {
      if (v.is_number()) out.insert(v.get<double>());
    }
  }
  if (size.is_string()) {
    const std::string text = size.get<std::string>();
    for (size_t at = 0; at < text.size();) {
      const size_t end = skip_digits(text, at);
      if (end == at) {
        ++at;
        continue;
      }
      out.insert(std::strtod(text.substr(at, end - at).c_str(), nullptr));
      at = end;
    }
  }
  return out;
}

std::string sizes_text(const std::multiset<double>& sizes) {
  std::string out;
  for (const double s : sizes) out += (out.empty() ? "" : ", ") + exact_text(s);
  return "[" + out + "]";
}

// store_results output: {"DEVICE": {"PROBLEM_SIZE": [{...}, ...]}}; a cache file:
// {"device_name", "kernel_name", "problem_size", "tune_params", "cache": {"16,2": {...}}}.
std::vector<Entry> entries_of(const json& document, const std::multiset<double>& problem,
                              const std::string& file, KernelTunerResults* out) {
  std::vector<Entry> entries;
  if (document.contains("cache")) {
    const json& cache = document.at("cache");
    if (!cache.is_object()) refuse(file, "'cache' must be an object of results");
    const std::string device = text_member(document, "device_name", "unknown GPU", file);
    for (const auto& item : cache.items()) {
      entries.push_back({device, "cache/" + item.key(), &item.value()});
    }
    return entries;
  }
  for (const auto& device : document.items()) {
    if (!device.value().is_object()) continue;
    for (const auto& size : device.value().items()) {
      if (!size.value().is_array()) continue;
      if (sizes_of(json(size.key())) != problem) {
        out->other_problems += static_cast<int64_t>(size.value().size());
        continue;
      }
      for (size_t i = 0; i < size.value().size(); ++i) {
        entries.push_back({device.key(), device.key() + "/" + size.key() + "/" + std::to_string(i),
                           &size.value()[i]});
      }
    }
  }
  if (entries.empty() && out->other_problems > 0) {
    refuse(file, "its " + std::to_string(out->other_problems) +
                     " results are of other problem sizes than " + sizes_text(problem) +
                     "; expected results at the spec's problem values (--set)");
  }
  if (entries.empty()) {
    refuse(file,
           "neither a Kernel Tuner cache file (no 'cache') nor store_results output ({device: "
           "{problem size: [results]}}); expected one of them");
  }
  return entries;
}

bool same(const json& given, const Value& value) {
  if (given.is_number()) return value.is_number() && given.get<double>() == value.as_number();
  if (given.is_boolean()) {
    return value.is_number() && value.as_number() == (given.get<bool>() ? 1 : 0);
  }
  if (given.is_string()) return !value.is_number() && given.get<std::string>() == value.as_symbol();
  return false;
}

Status failure_status(const std::string& kind) {
  if (kind == "CompilationFailedConfig") return Status::kCompileError;
  if (kind == "InvalidConfig") return Status::kResourceExceeded;
  return Status::kRuntimeError;
}

// The function a spec's kernel name names: "transpose" of "transpose<TILE, PAD>".
std::string function_name(const std::string& kernel) {
  return trim(kernel.substr(0, kernel.find('<')));
}

// Kernel Tuner's environment (env["compute_capability"], env["device_properties"]) where the
// file holds it, at the top level or under "env".
void read_gpu(const json& document, const std::string& file, KernelTunerResults* out) {
  const json* env = &document;
  if (document.contains("env") && document.at("env").is_object()) env = &document.at("env");
  if (env->contains("compute_capability")) {
    const json& cc = env->at("compute_capability");
    std::string text = cc.is_string() ? cc.get<std::string>() : "";
    if (cc.is_number_integer()) text = std::to_string(cc.get<int64_t>());
    if (cc.is_array() && cc.size() == 2 && cc[0].is_number_integer() && cc[1].is_number_integer()) {
      text = std::to_string(cc[0].get<int64_t>()) + "." + std::to_string(cc[1].get<int64_t>());
    }
    // "90" is Kernel Tuner's own spelling: the last digit is the minor version.
    if (text.find('.') == std::string::npos && text.size() >= 2) text.insert(text.size() - 1, ".");
    const auto parsed = parse_compute_capability(text);
    if (!parsed) {
      refuse(file, "compute_capability " + cc.dump() + " is no compute capability; expected " +
                       "\"90\", \"9.0\" or [9, 0]");
    }
    out->cc_major = parsed->first;
    out->cc_minor = parsed->second;
  }
  if (env->contains("device_properties") && env->at("device_properties").is_object()) {
    const json& properties = env->at("device_properties");
    for (const char* key : {"MULTIPROCESSOR_COUNT", "multiProcessorCount"}) {
      if (!properties.contains(key)) continue;
      const json& count = properties.at(key);
      if (!count.is_number_integer() || count.get<int64_t>() <= 0 ||
          count.get<int64_t>() > 100000) {
        refuse(file, std::string("device_properties.") + key + " " + count.dump() +
                         " is no SM count; expected a positive integer");
      }
      out->sm_count = static_cast<int>(count.get<int64_t>());
    }
  }
}

}  // namespace

std::optional<std::pair<int, int>> parse_compute_capability(const std::string& text) {
  const size_t dot = text.find('.');
  char* end = nullptr;
  const long major = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || major <= 0 || major > 99) return std::nullopt;
  long minor = 0;
  if (dot != std::string::npos) {
    if (end != text.c_str() + dot) return std::nullopt;
    const char* minor_text = text.c_str() + dot + 1;
    minor = std::strtol(minor_text, &end, 10);
    if (end == minor_text || minor < 0 || minor > 9) return std::nullopt;
  }
  if (*end != '\0') return std::nullopt;
  return std::make_pair(static_cast<int>(major), static_cast<int>(minor));
}

KernelTunerResults read_kernel_tuner(const std::string& text, const std::string& file,
                                     const Problem& problem) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    refuse(file, "invalid JSON (" + std::string(e.what()) + "); expected a Kernel Tuner file");
  }
  if (!document.is_object()) refuse(file, "a Kernel Tuner file is a JSON object");
  const SearchSpace& space = problem.space();
  const Spec& spec = problem.spec();
  std::multiset<double> values;
  for (const auto& [name, value] : problem.problem_values()) values.insert(value);

  // Another kernel's or problem's results would be taken for this one's.
  const std::string kernel = text_member(document, "kernel_name", "", file);
  if (!kernel.empty() && kernel != spec.kernel_name.text &&
      kernel != function_name(spec.kernel_name.text)) {
    refuse(file, "results of kernel '" + kernel + "', and " + spec.path + " tunes '" +
                     spec.kernel_name.text + "'; expected the spec of the kernel that was tuned");
  }
  if (document.contains("problem_size") && sizes_of(document.at("problem_size")) != values) {
    refuse(file, "results at problem size " + sizes_text(sizes_of(document.at("problem_size"))) +
                     ", and " + spec.path + " is at " + sizes_text(values) +
                     "; expected the spec at the problem values that were tuned (--set)");
  }
  // A parameter Kernel Tuner varied that the spec lacks would merge different kernels.
  if (document.contains("tune_params") && document.at("tune_params").is_object()) {
    for (const auto& [name, choices] : document.at("tune_params").items()) {
      if (space.dimension_index(name) < 0 && choices.is_array() && choices.size() > 1) {
        refuse(file, "Kernel Tuner parameter '" + name + "' takes " +
                         std::to_string(choices.size()) + " values but " + spec.path +
                         " has no such parameter; expected the spec of the kernel that was "
                         "tuned (parameters are matched by name)");
      }
    }
  }

  KernelTunerResults out;
  read_gpu(document, file, &out);
  const std::vector<size_t> baseline = space.decode(problem.baseline_index());
  std::set<uint64_t> seen;
  for (const Entry& entry : entries_of(document, values, file, &out)) {
    const json& result = *entry.result;
    if (!result.is_object()) continue;
    out.device_name = entry.device;
    std::vector<size_t> digits(space.dimensions().size());
    bool fits = true;
    for (size_t d = 0; d < digits.size() && fits; ++d) {
      const Dimension& dimension = space.dimensions()[d];
      if (!result.contains(dimension.name)) {
        digits[d] = baseline[d];  // a parameter Kernel Tuner did not tune: the spec's baseline
        out.defaulted.insert(dimension.name);
        continue;
      }
      fits = false;
      for (size_t v = 0; v < dimension.values.size(); ++v) {
        if (same(result.at(dimension.name), dimension.values[v])) {
          digits[d] = v;
          fits = true;
          break;
        }
      }
    }
    const uint64_t index = fits ? space.encode(digits) : 0;
    if (!fits || !space.valid(index)) {
      ++out.outside;
      continue;
    }
    Measurement m;
    m.config_index = index;
    m.config = space.json(index);
    m.compile_ms = number_member(result, "compile_time", 0, 0, entry, file);
    m.check_ms = number_member(result, "verification_time", 0, 0, entry, file);
    const json time = result.contains("time") ? result.at("time") : json();
    if (time.is_number()) {
      // Times are milliseconds a kernel ran: a time that is not positive was never measured.
      const double least = std::nextafter(0.0, 1.0);
      m.samples_ms.push_back(number_member(result, "time", 0, least, entry, file));
      if (result.contains("times")) {
        const json& times = result.at("times");
        if (!times.is_array()) refuse(file, entry.where + ": 'times' must be a list of numbers");
        std::vector<double> samples;
        for (const json& t : times) {
          const double sample = t.is_number() ? t.get<double>() : NAN;
          if (!std::isfinite(sample) || sample <= 0) {
            refuse(file, entry.where + ": 'times' must hold positive numbers, got " + t.dump());
          }
          samples.push_back(sample);
        }
        if (!samples.empty()) m.samples_ms = std::move(samples);
      }
      m.status = Status::kOk;
      m.message = "imported from Kernel Tuner";
    } else {
      const std::string kind = time.is_string() ? time.get<std::string>() : "no time";
      m.status = failure_status(kind);
      m.message = "imported from Kernel Tuner: " + kind;
    }
    if (!seen.insert(index).second) continue;
    (m.status == Status::kOk ? out.ok : out.failures) += 1;
    out.measurements.push_back(std::move(m));
  }
  if (out.measurements.empty()) {
    refuse(file, "none of its " + std::to_string(out.outside) + " results is a config of " +
                     spec.path +
                     "'s space; expected the spec of the kernel that was tuned, with the values "
                     "Kernel Tuner tried");
  }
  return out;
}

}  // namespace gputune

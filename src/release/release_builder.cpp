#include "release/release_builder.h"

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "compile/compiler.h"
#include "core/config_codec.h"
#include "core/files.h"
#include "gputune/error.h"
#include "release/canonical_json.h"
#include "release/embedded_code.h"
#include "release/keep_rule.h"
#include "release/measured_spec.h"
#include "release/release_dump.h"
#include "release/results_reader.h"
#include "release/spec_json.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

// Whether a config fuses launches (the engine's `fuse` knob at 2 or more).
bool is_fused(const Spec& spec, const std::string& config_json) {
  const bool has_fuse = std::any_of(spec.transforms.begin(), spec.transforms.end(),
                                    [](const ParameterSpec& knob) { return knob.name == "fuse"; });
  if (!has_fuse) return false;
  const nlohmann::json config = nlohmann::json::parse(config_json, nullptr, false);
  return config.is_object() && config.contains("fuse") && config["fuse"].is_number() &&
         config["fuse"].get<double>() >= 2;
}

// Problem points in numeric order (n=512 before n=1024), then as text.
std::vector<double> numeric(const std::string& problem_json) {
  std::vector<double> out;
  for (const auto& [name, value] : problem_from_json(problem_json).value_or(ProblemValues{})) {
    out.push_back(value);
  }
  return out;
}

bool problem_less(const std::string& a, const std::string& b) {
  const auto na = numeric(a), nb = numeric(b);
  return na != nb ? na < nb : a < b;
}

struct KeptWorkload {
  size_t kernel = 0;  // index into the kernels, which are sorted
  size_t device = 0;  // index into the devices, which are sorted
  const MeasuredWorkload* measured = nullptr;
  std::vector<KeptChoice> kept;
};

struct KernelData {
  KernelIdentity identity;
  Spec spec;
  std::string baseline_json;  // canonical
};

std::string sources_json(const std::vector<std::pair<std::string, std::string>>& sources) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [path, hash] : sources) out.push_back({{"path", path}, {"hash", hash}});
  return out.dump();
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// The compile request of config `index` of a kernel at one of its problem points.
CompileRequest request_at(const Spec& spec, const std::string& problem_json, uint64_t index) {
  Problem problem(spec, problem_from_json(problem_json).value_or(ProblemValues{}));
  return compile_request(problem, problem.variant(index), "");
}

bool same_code(const CompileRequest& a, const CompileRequest& b) {
  return a.source == b.source && a.options == b.options &&
         a.kernel_name_expressions == b.kernel_name_expressions;
}

// One job per kept config of the kernels whose code does not depend on the problem point;
// `say` warns about the others, which ship without code.
std::vector<CodeJob> code_jobs(const Release& release, const std::vector<KernelData>& kernels,
                               const std::vector<KeptWorkload>& workloads,
                               const std::map<std::pair<int64_t, std::string>, int64_t>& config_ids,
                               const std::function<void(const std::string&)>& say) {
  // Per config id: the compile request at every problem point that keeps it.
  std::map<int64_t, CodeJob> jobs;
  std::set<size_t> problem_dependent;
  for (const KeptWorkload& w : workloads) {
    const KernelData& kernel = kernels[w.kernel];
    if (problem_dependent.count(w.kernel)) continue;
    for (const KeptChoice& choice : w.kept) {
      const int64_t id =
          config_ids.at({static_cast<int64_t>(w.kernel) + 1, choice.candidate.config_json});
      CompileRequest request =
          request_at(kernel.spec, w.measured->problem_json, choice.candidate.config_index);
      auto [it, inserted] = jobs.emplace(id, CodeJob{id, "", request});
      if (inserted) {
        it->second.what = "kernel '" + kernel.identity.name + "' config " +
                          release.configs.at(id - 1).config_json;
      } else if (!same_code(it->second.request, request)) {
        problem_dependent.insert(w.kernel);
        if (say) {
          say("warning: kernel '" + kernel.identity.name +
              "' compiles to different code at different problem values (its defines or "
              "kernel names use them): its code is not embedded; the run time compiles it");
        }
      }
    }
  }
  std::vector<CodeJob> out;
  for (auto& [id, job] : jobs) {
    const int64_t kernel_id = release.configs.at(id - 1).kernel_id;
    if (!problem_dependent.count(static_cast<size_t>(kernel_id - 1))) {
      out.push_back(std::move(job));
    }
  }
  return out;
}

}  // namespace

Release build_release_model(const ReleaseOptions& options, CompileService* compiles,
                            const std::function<void(const std::string&)>& say) {
  if (options.top < 1) {
    throw Error(ErrorCode::kUsage, "--top " + std::to_string(options.top) +
                                       ": expected at least 1 config per problem point");
  }
  const MeasuredResults measured = read_measured_results(options.databases, options.kernels);
  if (measured.workloads.empty()) {
    throw Error(ErrorCode::kDb,
                joined(options.databases, ", ") + ": no measured workloads" +
                    (options.kernels.empty() ? "" : " of kernel " + joined(options.kernels, ", ")) +
                    "; run `gputune search SPEC --db FILE` first");
  }
  std::vector<Spec> given_specs;
  for (const std::string& path : options.spec_paths) {
    given_specs.push_back(load_spec(path));
    for (const std::string& warning : given_specs.back().warnings) {
      if (say) say("warning: " + warning);
    }
  }

  Release release;
  std::vector<KernelData> kernels;
  std::map<KernelIdentity, size_t> kernel_index;
  for (const auto& [identity, stored] : measured.kernels) {
    KernelData data{identity, load_measured_spec(identity, stored, given_specs), ""};
    data.baseline_json = canonical_config_json(config_to_json(data.spec.baseline));
    release.kernels.push_back({static_cast<int64_t>(release.kernels.size()) + 1, identity.name,
                               identity.source_hash, identity.space_hash, spec_json(data.spec)});
    kernel_index[identity] = kernels.size();
    kernels.push_back(std::move(data));
  }
  std::map<DeviceIdentity, size_t> device_index;
  for (const MeasuredWorkload& w : measured.workloads) device_index.emplace(w.device, 0);
  for (auto& [device, index] : device_index) {
    index = release.devices.size();
    release.devices.push_back({static_cast<int64_t>(index) + 1, device.name, device.cc_major,
                               device.cc_minor, device.sm_count, device.toolchain});
  }

  // The keep rule per workload; the configs it keeps, per kernel.
  std::vector<KeptWorkload> workloads;
  std::map<std::pair<int64_t, std::string>, bool> kept_configs;  // (kernel id, json) -> baseline
  for (const MeasuredWorkload& w : measured.workloads) {
    KeptWorkload k;
    k.kernel = kernel_index.at(w.kernel);
    k.device = device_index.at(w.device);
    k.measured = &w;
    std::vector<MeasuredConfig> candidates;
    size_t fused = 0;
    for (const auto& [json, candidate] : w.configs) {
      if (is_fused(kernels[k.kernel].spec, json)) {
        ++fused;
        continue;
      }
      candidates.push_back(candidate);
      candidates.back().is_baseline = json == kernels[k.kernel].baseline_json;
    }
    if (fused > 0 && say) {
      say("warning: " + w.kernel.name + " on " + w.device.name + " at " + w.problem_json + ": " +
          std::to_string(fused) +
          " fused configs (fuse >= 2) left out: the run time launches the spec's launches one "
          "by one, and a fused kernel takes the arguments of several");
    }
    k.kept = keep_choices(std::move(candidates), options.top);
    if (k.kept.empty()) {
      if (say) {
        say("warning: " + w.kernel.name + " on " + w.device.name + " at " + w.problem_json +
            ": no config measured ok; left out");
      }
      continue;
    }
    for (const KeptChoice& c : k.kept) {
      kept_configs[{static_cast<int64_t>(k.kernel) + 1, c.candidate.config_json}] =
          c.candidate.is_baseline;
    }
    workloads.push_back(std::move(k));
  }
  std::sort(workloads.begin(), workloads.end(), [](const KeptWorkload& a, const KeptWorkload& b) {
    if (a.kernel != b.kernel) return a.kernel < b.kernel;
    if (a.device != b.device) return a.device < b.device;
    return problem_less(a.measured->problem_json, b.measured->problem_json);
  });

  std::map<std::pair<int64_t, std::string>, int64_t> config_ids;
  for (const auto& [key, is_baseline] : kept_configs) {
    const int64_t id = static_cast<int64_t>(release.configs.size()) + 1;
    release.configs.push_back({id, key.first, key.second, is_baseline});
    config_ids[key] = id;
  }

  for (const KeptWorkload& w : workloads) {
    const int64_t kernel_id = static_cast<int64_t>(w.kernel) + 1;
    const int64_t device_id = static_cast<int64_t>(w.device) + 1;
    for (const KeptChoice& k : w.kept) {
      ReleaseChoice c;
      c.kernel_id = kernel_id;
      c.device_id = device_id;
      c.problem_json = w.measured->problem_json;
      c.rank = k.rank;
      c.config_id = config_ids.at({kernel_id, k.candidate.config_json});
      c.median_ms = k.candidate.median_ms;
      c.spread = k.candidate.spread;
      c.speedup_over_baseline = k.speedup_over_baseline;
      c.margin_to_runner_up = k.margin_to_runner_up;
      c.registers = k.candidate.registers;
      c.shared_bytes = k.candidate.shared_bytes;
      c.provenance = k.candidate.provenance;
      release.choices.push_back(std::move(c));
    }
    for (const auto& [json, candidate] : w.measured->configs) {
      release.observations.push_back(
          {kernel_id, device_id, w.measured->problem_json, json, candidate.median_ms});
    }
  }

  std::vector<std::string> targets;
  if (options.embed_code) {
    if (compiles == nullptr) throw Error(ErrorCode::kInternal, "release: no compiler for code");
    std::vector<std::string> architectures = options.architectures;
    if (architectures.empty()) {
      std::set<std::string> measured_architectures;
      for (const ReleaseDevice& d : release.devices) {
        measured_architectures.insert("sm_" + std::to_string(d.cc_major * 10 + d.cc_minor));
      }
      architectures.assign(measured_architectures.begin(), measured_architectures.end());
    }
    targets = code_targets(architectures);
    release.code = compile_code(code_jobs(release, kernels, workloads, config_ids, say), targets,
                                *compiles, say);
    release.meta["code_toolchain"] = nvrtc_version();
  }

  release.meta["format"] = std::to_string(kReleaseFormat);
  release.meta["gputune_version"] = GPUTUNE_VERSION;
  release.meta["gputune_commit"] = options.commit;
  release.meta["created_at"] = options.created_at;
  release.meta["sources"] = sources_json(measured.sources);
  release.meta["noise_rule"] = kNoiseRule;
  release.meta["top"] = std::to_string(options.top);
  release.meta["code_targets"] = joined(targets, ",");
  return release;
}

namespace {

// A temporary file beside `path`, renamed over it once complete: a reader never sees half a file.
std::string temporary_beside(const std::string& path) {
  return path + ".tmp-" + std::to_string(::getpid());
}

// Synced first: a crash after the rename must not leave a release whose pages never reached
// the disk.
void rename_into_place(const std::string& from, const std::string& to) {
  try {
    sync_and_rename(from, to);
  } catch (const Error& e) {
    throw Error(ErrorCode::kIo, to + ": cannot write the release: " + e.what());
  }
}

}  // namespace

void write_release_files(const Release& release, const std::string& output, bool force) {
  const std::string dump_path = output + ".txt";
  std::error_code ec;
  if (!force && std::filesystem::exists(output, ec)) {
    throw Error(ErrorCode::kIo, output +
                                    " exists; a release is written once: pass --force to replace "
                                    "it, or choose another -o FILE");
  }
  const std::string db_tmp = temporary_beside(output);
  std::filesystem::remove(db_tmp, ec);
  try {
    write_release_db(release, db_tmp);
  } catch (...) {
    std::filesystem::remove(db_tmp, ec);
    throw;
  }
  const std::string dump_tmp = temporary_beside(dump_path);
  {
    std::ofstream out(dump_tmp, std::ios::binary | std::ios::trunc);
    out << release_dump(release);
    if (!out) {
      std::filesystem::remove(db_tmp, ec);
      std::filesystem::remove(dump_tmp, ec);
      throw Error(ErrorCode::kIo, dump_path + ": cannot write the release's text dump");
    }
  }
  rename_into_place(db_tmp, output);
  rename_into_place(dump_tmp, dump_path);
}

}  // namespace gputune

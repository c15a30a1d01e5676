// `gputune profile-launch`: the program ncu runs, one variant or a batch of them.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "compile/cached_compiler.h"
#include "compile/output_checker.h"
#include "gputune/analysis.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "model/features.h"
#include "run/cuda_driver.h"
#include "run/runner.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

// The exit status that tells `gputune analyze` a variant failed on the GPU: the rest of the
// batch goes to a fresh process.
constexpr int kVariantFailedExit = 3;

// The space's index of every config, read value by value; a config must be exactly one of the
// space's (as SearchSpace::json writes it).
std::vector<uint64_t> indices_of(const SearchSpace& space, const std::vector<std::string>& configs,
                                 const std::string& spec) {
  std::vector<uint64_t> indices;
  for (const std::string& config : configs) {
    const std::optional<uint64_t> index = index_from_json(space, config);
    if (!index || space.json(*index) != config) {
      throw Error(ErrorCode::kUsage,
                  "profile-launch: --config-json " + config + " is no config of " + spec);
    }
    indices.push_back(*index);
  }
  return indices;
}

class Manifest {
 public:
  explicit Manifest(const std::string& path) {
    if (path.empty()) return;
    out_.open(path, std::ios::app);
    if (!out_) throw Error(ErrorCode::kIo, "profile-launch: cannot write --manifest " + path);
  }
  void write(const std::string& config, bool launched, const std::string& message) {
    if (!out_.is_open()) return;
    nlohmann::json line = {{"config", config}, {"launched", launched}, {"message", message}};
    out_ << json_text(line) << std::endl;  // flushed: a crash after it keeps it
  }

 private:
  std::ofstream out_;
};

}  // namespace

int profile_launch(const ProfileLaunchRequest& request) {
  Problem problem(load_spec(resolve_spec(request.spec), request.overrides));
  const SearchSpace& space = problem.space();
  if (request.configs.empty()) {
    throw Error(ErrorCode::kUsage, "profile-launch: give --config-json at least once");
  }
  const std::vector<uint64_t> indices = indices_of(space, request.configs, request.spec);
  Manifest manifest(request.manifest);
  const bool batch = !request.manifest.empty();
  // In this process, not a forked child: under ncu a forked child sees no GPU.
  const std::string arch = cuda::query_device(request.device).arch();
  std::shared_ptr<const ModuleCache> cache;
  if (request.use_cache) {
    cache = std::make_shared<ModuleCache>(
        request.cache_dir.empty() ? ModuleCache::default_directory() : request.cache_dir);
  }
  std::unique_ptr<Compiler> compiler = make_cached_compiler(make_nvrtc_compiler(), cache);
  TimingOptions timing;
  timing.warmup_ms = 0;
  timing.min_samples = 1;
  timing.max_samples = 1;
  timing.max_seconds = 0.01;
  timing.flush_l2 = false;
  timing.profile_checked_run = batch;
  auto runner = make_gpu_runner(problem, request.device, timing,
                                compile_output_checkers(problem.spec(), *compiler, arch));
  bool has_reference = false;
  for (size_t i = 0; i < indices.size(); ++i) {
    std::error_code ignored;
    if (!request.stop_file.empty() && std::filesystem::exists(request.stop_file, ignored)) break;
    const Variant variant = problem.variant(indices[i]);
    Candidate candidate{variant, compiler->compile(compile_request(problem, variant, arch))};
    if (!candidate.kernel.ok) {
      if (!batch) {
        throw Error(ErrorCode::kNvrtc, "profile-launch: " + space.describe(indices[i]) +
                                           " does not compile:\n" + candidate.kernel.log);
      }
      manifest.write(request.configs[i], false, "does not compile");
      continue;
    }
    if (!has_reference) {
      try {
        runner->set_reference(candidate);
      } catch (const Error& e) {
        if (!batch) throw;
        manifest.write(request.configs[i], false, e.what());
        return kVariantFailedExit;
      }
      has_reference = true;
      manifest.write(request.configs[i], true, "");
      continue;
    }
    const Measurement m = runner->run({candidate}).at(0);
    const bool launched = m.status == Status::kOk || m.status == Status::kWrongAnswer;
    manifest.write(request.configs[i], launched,
                   launched ? "" : std::string(status_name(m.status)) + ": " + m.message);
    if (m.status == Status::kRuntimeError) return kVariantFailedExit;
  }
  return 0;
}

}  // namespace gputune

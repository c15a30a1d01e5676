#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "compile/module_cache.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/release.h"
#include "process/compile_pool.h"
#include "release/embedded_code.h"
#include "release/release_builder.h"
#include "release/release_dump.h"
#include "spec/spec_catalog.h"

namespace gputune {
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace

ReleaseSummary build_release(const ReleaseRequest& request,
                             const std::function<void(const std::string&)>& say) {
  if (request.databases.empty()) {
    throw Error(ErrorCode::kUsage,
                "expected one or more result databases, e.g. gputune release results.db -o "
                "kernels.gtrel");
  }
  if (request.output.empty()) {
    throw Error(ErrorCode::kUsage, "-o FILE.gtrel is required (the release database to write)");
  }
  if (!request.embed.empty() && request.no_code) {
    throw Error(ErrorCode::kUsage, "--embed and --no-code exclude each other");
  }
  ReleaseOptions options;
  options.databases = request.databases;
  for (const std::string& spec : request.specs) options.spec_paths.push_back(resolve_spec(spec));
  options.embed_code = !request.no_code;
  if (options.embed_code && !request.embed.empty()) {
    options.architectures = parse_architectures(request.embed);
  }
  options.top = request.top;
  options.kernels = request.kernels;
  options.commit = request.commit;
  options.created_at = utc_now();

  std::unique_ptr<CompilePool> pool;
  if (options.embed_code) {
    std::shared_ptr<ModuleCache> cache;
    if (request.use_cache) {
      cache = std::make_shared<ModuleCache>(
          request.cache_dir.empty() ? ModuleCache::default_directory() : request.cache_dir);
    }
    pool = std::make_unique<CompilePool>(request.jobs, make_nvrtc_compiler, cache);
  }
  const Release release = build_release_model(options, pool.get(), say);
  write_release_files(release, request.output, request.force);

  ReleaseSummary summary;
  summary.output = request.output;
  summary.dump = request.output + ".txt";
  summary.kernels = release.kernels.size();
  summary.devices = release.devices.size();
  std::set<std::tuple<int64_t, int64_t, std::string>> problems;
  for (const ReleaseChoice& c : release.choices) {
    problems.emplace(c.kernel_id, c.device_id, c.problem_json);
  }
  summary.problems = problems.size();
  summary.choices = release.choices.size();
  summary.configs = release.configs.size();
  summary.code = release.code.size();
  const std::string& targets = release.meta.at("code_targets");
  for (size_t start = 0; start < targets.size();) {
    size_t comma = targets.find(',', start);
    if (comma == std::string::npos) comma = targets.size();
    summary.code_targets.push_back(targets.substr(start, comma - start));
    start = comma + 1;
  }
  return summary;
}

std::string ReleaseSummary::json() const {
  return json_text(nlohmann::json{{"output", output},
                                  {"dump", dump},
                                  {"kernels", kernels},
                                  {"devices", devices},
                                  {"problems", problems},
                                  {"choices", choices},
                                  {"configs", configs},
                                  {"code", code},
                                  {"code_targets", code_targets}},
                   2);
}

std::string release_dump_text(const std::string& path) {
  const Release release = read_release_db(path);
  std::string text;
  try {
    text = release_dump(release);
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + e.what());
  }
  return text;
}

}  // namespace gputune

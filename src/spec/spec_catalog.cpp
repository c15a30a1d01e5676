#include "spec/spec_catalog.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "gputune/error.h"

namespace fs = std::filesystem;

namespace gputune {

namespace {
fs::path executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}
}  // namespace

std::vector<std::string> spec_folders() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("GPUTUNE_SPACES")) candidates.emplace_back(env);
  fs::path exe = executable_dir();
  if (!exe.empty()) {
    candidates.push_back(exe / "spaces");
    candidates.push_back(exe / ".." / "spaces");
    candidates.push_back(exe / ".." / "share" / "gputune" / "spaces");
  }
  candidates.emplace_back(fs::path(GPUTUNE_SOURCE_DIR) / "spaces");
  std::vector<std::string> folders;
  std::set<fs::path> seen;
  for (const auto& c : candidates) {
    std::error_code ec;
    if (!fs::is_directory(c, ec)) continue;
    fs::path canonical = fs::weakly_canonical(c, ec);
    if (seen.insert(canonical).second) folders.push_back(canonical.string());
  }
  return folders;
}

std::vector<std::string> shipped_specs() {
  std::vector<std::string> specs;
  std::set<std::string> names;
  for (const auto& folder : spec_folders()) {
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (entry.path().extension() != ".yaml") continue;
      if (names.insert(entry.path().stem().string()).second) {
        specs.push_back(entry.path().string());
      }
    }
  }
  std::sort(specs.begin(), specs.end(), [](const std::string& a, const std::string& b) {
    return fs::path(a).stem() < fs::path(b).stem();
  });
  return specs;
}

std::string resolve_spec(const std::string& path_or_name) {
  std::error_code ec;
  if (fs::exists(path_or_name, ec)) return path_or_name;
  std::string known;
  for (const auto& spec : shipped_specs()) {
    std::string stem = fs::path(spec).stem().string();
    if (stem == path_or_name || stem + ".yaml" == path_or_name) return spec;
    known += (known.empty() ? "" : ", ") + stem;
  }
  throw Error(ErrorCode::kIo, path_or_name + ": no such file, and no shipped spec of that name" +
                                  (known.empty() ? std::string() : " (shipped: " + known + ")"));
}

}  // namespace gputune

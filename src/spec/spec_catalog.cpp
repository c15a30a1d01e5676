#include "spec/spec_catalog.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <dlfcn.h>

#include "gputune/error.h"

namespace fs = std::filesystem;

namespace gputune {

namespace {

void add_if_folder(const fs::path& candidate, std::vector<std::string>* folders) {
  std::error_code ec;
  if (!fs::is_directory(candidate, ec)) return;
  const std::string canonical = fs::weakly_canonical(candidate, ec).string();
  if (std::find(folders->begin(), folders->end(), canonical) == folders->end()) {
    folders->push_back(canonical);
  }
}

// Installed locations first; the source tree only where the build says it may be used
// (never in the Python package, whose build tree is gone once it is installed).
std::vector<std::string> installed_spec_folders() {
  std::vector<std::string> folders = spec_folders_beside(code_directory());
#if GPUTUNE_SOURCE_TREE_FALLBACK
  add_if_folder(fs::path(GPUTUNE_SOURCE_DIR) / "spaces", &folders);
#endif
  return folders;
}

}  // namespace

std::string code_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&code_directory), &info) == 0 || !info.dli_fname) {
    return "";
  }
  std::error_code ec;
  fs::path file = fs::weakly_canonical(info.dli_fname, ec);
  if (ec || !file.is_absolute()) {  // a program started by its bare name
    file = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return "";
  }
  return file.parent_path().string();
}

std::vector<std::string> spec_folders_beside(const std::string& code_dir) {
  std::vector<std::string> folders;
  if (code_dir.empty()) return folders;
  const fs::path dir(code_dir);
  add_if_folder(dir / "spaces", &folders);
  add_if_folder(dir / ".." / "share" / "gputune" / "spaces", &folders);
  add_if_folder(dir / ".." / "spaces", &folders);
  return folders;
}

std::vector<std::string> spec_folders() {
  std::vector<std::string> folders;
  if (const char* env = std::getenv("GPUTUNE_SPACES")) add_if_folder(env, &folders);
  for (const auto& folder : installed_spec_folders()) add_if_folder(folder, &folders);
  return folders;
}

std::string shipped_data_root() {
  const auto folders = installed_spec_folders();
  return folders.empty() ? std::string() : fs::path(folders.front()).parent_path().string();
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

#include "compile/module_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "compile/compiler_wire.h"
#include "core/hash.h"
#include "gputune/error.h"

namespace gputune {

namespace fs = std::filesystem;

namespace {

constexpr char kEntryMagic[] = "gputune-module-2";  // 2: several kernels per module

}  // namespace

ModuleCache::ModuleCache(std::string directory, std::string toolchain)
    : directory_(std::move(directory)), toolchain_(std::move(toolchain)) {
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error || !fs::is_directory(directory_)) {
    throw Error(ErrorCode::kIo, directory_ + ": cannot create the module cache directory (" +
                                    error.message() + "); --cache-dir or --no-cache");
  }
}

std::string ModuleCache::default_directory() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg == '/') return std::string(xdg) + "/gputune/modules";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return std::string(home) + "/.cache/gputune/modules";
  return (fs::temp_directory_path() / "gputune-modules").string();
}

// Everything that decides the cubin, unambiguously framed, so that equal keys mean equal input.
std::string ModuleCache::key(const CompileRequest& request) const {
  wire::Writer w;
  w.str(toolchain_).str(request.arch).strings(request.kernel_name_expressions);
  w.strings(request.options).str(request.source_name).str(request.headers_hash);
  w.str(request.source);
  return w.take();
}

std::string ModuleCache::path_for(const CompileRequest& request) const {
  return directory_ + "/" + stable_hash(key(request)) + ".module";
}

std::optional<CompiledKernel> ModuleCache::load(const CompileRequest& request) const {
  std::ifstream in(path_for(request), std::ios::binary);
  if (!in) return std::nullopt;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    // [payload][16 hex digits of the payload's hash]: a truncated or damaged file is a miss.
    if (data.size() < 16) return std::nullopt;
    const std::string payload = data.substr(0, data.size() - 16);
    if (stable_hash(payload) != data.substr(data.size() - 16)) return std::nullopt;
    wire::Reader r(payload);
    if (r.str() != kEntryMagic) return std::nullopt;
    // The whole key is stored: a hash collision is a miss, never another kernel.
    if (r.str() != key(request)) return std::nullopt;
    CompiledKernel kernel;
    wire::get(r, &kernel);
    if (!r.at_end()) return std::nullopt;
    kernel.cached = true;
    return kernel;
  } catch (const Error&) {
    return std::nullopt;
  }
}

void ModuleCache::save(const CompileRequest& request, const CompiledKernel& kernel) const {
  wire::Writer w;
  w.str(kEntryMagic).str(key(request));
  CompiledKernel stored = kernel;
  stored.cached = false;
  wire::put(w, stored);
  std::string data = w.take();
  data += stable_hash(data);

  const std::string path = path_for(request);
  static thread_local std::mt19937_64 random(std::random_device{}());
  const std::string temp =
      path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(random());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      return;
    }
  }
  std::error_code error;
  fs::rename(temp, path, error);  // atomic: readers see the old entry or the new, whole
  if (error) fs::remove(temp, error);
}

}  // namespace gputune

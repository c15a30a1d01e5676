#include "compile/module_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "compile/compiler_wire.h"
#include "core/files.h"
#include "core/hash.h"
#include "core/sha256.h"
#include "gputune/error.h"

namespace gputune {

namespace fs = std::filesystem;

namespace {

// 2: several kernels per module; 3: the key covers included files, entries carry an HMAC.
constexpr char kEntryMagic[] = "gputune-module-3";
constexpr size_t kSecretBytes = 32;
constexpr size_t kMacBytes = 32;

std::string private_fallback_directory() {
  return (fs::temp_directory_path() / ("gputune-modules-" + std::to_string(::geteuid()))).string();
}

// `shared`: a key named by $GPUTUNE_CACHE_KEY, which others may read on purpose (users who
// share a cache folder); the default key is the user's alone, and made so if it is not.
std::string read_secret(const std::string& path, bool shared) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";
  struct stat info {};
  std::string out;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    char buffer[kSecretBytes];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == static_cast<ssize_t>(kSecretBytes)) out.assign(buffer, kSecretBytes);
    // Anyone else who can write the key, or read it unasked, could forge entries.
    const bool others_write = (info.st_mode & 022) != 0;
    const bool others_read = (info.st_mode & 044) != 0;
    const bool mine = info.st_uid == ::geteuid();
    if (!shared && mine && others_read && !others_write) ::fchmod(fd, 0600);
    if (others_write || (!shared && !mine)) {
      ::close(fd);
      throw Error(ErrorCode::kIo, path +
                                      ": the module cache key is another user's or may be written "
                                      "by others, who could then forge cached modules; chmod "
                                      "go-w it, or remove it to make a new one");
    }
  }
  ::close(fd);
  return out;
}

// The key file's secret, made (32 random bytes, mode 0600, in a folder of the user's) where
// the file is missing. Two processes making it at once agree: the second link() fails and it
// reads the first's.
std::string cache_secret(const std::string& path, bool shared) {
  std::string secret = read_secret(path, shared);
  if (!secret.empty()) return secret;
  std::error_code error;
  const std::string folder = fs::path(path).parent_path().string();
  if (!folder.empty()) fs::create_directories(folder, error);
  std::random_device random;
  for (size_t i = 0; i < kSecretBytes; ++i) secret += static_cast<char>(random() & 0xFF);
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const bool written =
      fd >= 0 && ::write(fd, secret.data(), secret.size()) == static_cast<ssize_t>(secret.size()) &&
      ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  const bool linked = written && ::link(temporary.c_str(), path.c_str()) == 0;
  ::unlink(temporary.c_str());
  if (linked) return secret;
  secret = read_secret(path, shared);
  if (secret.size() != kSecretBytes) {
    throw Error(ErrorCode::kIo, path + ": cannot create or read the module cache key (" +
                                    std::strerror(errno) +
                                    "); --no-cache, or set "
                                    "GPUTUNE_CACHE_KEY to a file of 32 random bytes");
  }
  return secret;
}

std::string mac_of(const std::string& secret, const std::string& payload) {
  const Sha256Digest mac = hmac_sha256(secret, payload);
  return std::string(reinterpret_cast<const char*>(mac.data()), mac.size());
}

}  // namespace

ModuleCache::ModuleCache(std::string directory, std::string toolchain, std::string key_file)
    : directory_(std::move(directory)), toolchain_(std::move(toolchain)) {
  if (directory_ == private_fallback_directory()) {
    ensure_private_directory(directory_);
  }
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error || !fs::is_directory(directory_)) {
    throw Error(ErrorCode::kIo, directory_ + ": cannot create the module cache directory (" +
                                    error.message() + "); --cache-dir or --no-cache");
  }
  const char* given = std::getenv("GPUTUNE_CACHE_KEY");
  secret_ = cache_secret(key_file, given != nullptr && key_file == given);
}

std::string ModuleCache::default_directory() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg == '/') return std::string(xdg) + "/gputune/modules";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return std::string(home) + "/.cache/gputune/modules";
  return private_fallback_directory();
}

std::string ModuleCache::default_key_file() {
  const char* given = std::getenv("GPUTUNE_CACHE_KEY");
  if (given != nullptr && *given != '\0') return given;
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg != nullptr && *xdg == '/') return std::string(xdg) + "/gputune/module-cache.key";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    return std::string(home) + "/.config/gputune/module-cache.key";
  }
  const std::string folder = private_fallback_directory();
  ensure_private_directory(folder);
  return folder + "/module-cache.key";
}

IncludeClosure ModuleCache::closure(const CompileRequest& request) const {
  // What decides the closure: the source (its #include lines) and the options (folders).
  wire::Writer w;
  w.str(request.source).strings(request.options);
  const std::string memo_key = hex(sha256(w.data()));
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = closures_.find(memo_key);
  if (found != closures_.end()) return found->second;
  return closures_[memo_key] = include_closure(request);
}

// Everything that decides the cubin, unambiguously framed, so that equal keys mean equal input.
std::optional<std::string> ModuleCache::key(const CompileRequest& request) const {
  const IncludeClosure included = closure(request);
  if (!included.complete) return std::nullopt;
  wire::Writer w;
  w.str(toolchain_).str(request.arch).strings(request.kernel_name_expressions);
  w.strings(request.options).str(request.source_name).str(request.headers_hash);
  w.str(request.source).str(included.fingerprint);
  return w.take();
}

std::string ModuleCache::entry_path(const std::string& key) const {
  return directory_ + "/" + hex(sha256(key)).substr(0, 32) + ".module";
}

std::string ModuleCache::path_for(const CompileRequest& request) const {
  const std::optional<std::string> k = key(request);
  return k ? entry_path(*k) : "";
}

std::optional<CompiledKernel> ModuleCache::load(const CompileRequest& request) const {
  const std::optional<std::string> k = key(request);
  if (!k) return std::nullopt;
  std::ifstream in(entry_path(*k), std::ios::binary);
  if (!in) return std::nullopt;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    // [payload][HMAC-SHA-256 of the payload under the cache key]: a truncated, damaged or
    // forged file is a miss.
    if (data.size() < kMacBytes) return std::nullopt;
    const std::string payload = data.substr(0, data.size() - kMacBytes);
    Sha256Digest stored{}, expected = hmac_sha256(secret_, payload);
    std::memcpy(stored.data(), data.data() + payload.size(), kMacBytes);
    if (!same_digest(stored, expected)) return std::nullopt;
    wire::Reader r(payload);
    if (r.str() != kEntryMagic) return std::nullopt;
    // The whole key is stored: a hash collision is a miss, never another kernel.
    if (r.str() != *k) return std::nullopt;
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
  const std::optional<std::string> k = key(request);
  if (!k) return;
  wire::Writer w;
  w.str(kEntryMagic).str(*k);
  CompiledKernel stored = kernel;
  stored.cached = false;
  wire::put(w, stored);
  std::string data = w.take();
  data += mac_of(secret_, data);

  const std::string path = entry_path(*k);
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

#include "core/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "gputune/error.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::kIo, path + ": " + what + " (" + std::strerror(errno) + ")");
}

void sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot be opened to sync");
  const bool synced = ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  errno = saved;
  // Some file systems cannot sync a folder (EINVAL); the rename is still atomic there.
  if (!synced && errno != EINVAL && errno != EROFS) fail(path, "cannot be synced to disk");
}

std::string folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::string temporary_beside(const std::string& path) {
  static thread_local std::mt19937_64 random(std::random_device{}());
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(random() % 1000000007);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string temporary = temporary_beside(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(temporary, "cannot be created");
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      errno = saved;
      fail(path, "cannot be written");
    }
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  sync_and_rename(temporary, path);
}

void sync_and_rename(const std::string& from, const std::string& to) {
  try {
    sync_path(from, O_RDONLY);
  } catch (const Error&) {
    ::unlink(from.c_str());
    throw;
  }
  if (::rename(from.c_str(), to.c_str()) != 0) {
    const int saved = errno;
    ::unlink(from.c_str());
    errno = saved;
    fail(to, "cannot be renamed into place");
  }
  sync_path(folder_of(to), O_RDONLY | O_DIRECTORY);
}

std::string make_private_temp_directory(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) fail(pattern, "cannot create a temporary folder");
  return name.data();
}

void ensure_private_directory(const std::string& path) {
  std::error_code error;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, error);
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) fail(path, "cannot be created");
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) fail(path, "cannot be examined");
  if (!S_ISDIR(info.st_mode)) {
    throw Error(ErrorCode::kIo, path +
                                    ": not a folder (a link or a file); it must be a folder "
                                    "of your own; remove it or choose another");
  }
  if (info.st_uid != ::geteuid()) {
    throw Error(ErrorCode::kIo, path + ": belongs to another user (uid " +
                                    std::to_string(info.st_uid) +
                                    "), who could change what is read from it; choose a folder "
                                    "of your own");
  }
  if ((info.st_mode & 077) != 0 && ::chmod(path.c_str(), info.st_mode & 0700) != 0) {
    fail(path, "is open to other users and cannot be made private");
  }
}

}  // namespace gputune

#include "process/ipc.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace gputune::wire {

// The GPU worker loads what was compiled: a variant's source and refusal stay behind.
void put(Writer& w, const Variant& v) {
  w.u64(v.index).str(v.config).strings(v.kernel_name_expressions).strings(v.compile_options);
  w.str(v.prelude).u64(v.launches.size());
  for (const Launch& launch : v.launches) {
    w.u64(launch.kernel).u64(launch.arguments.size());
    for (size_t a : launch.arguments) w.u64(a);
    for (uint32_t x : launch.block) w.u32(x);
    for (uint32_t x : launch.grid) w.u32(x);
    w.u32(launch.dynamic_shared_bytes).u64(launch.trailing_arguments.size());
    for (uint32_t x : launch.trailing_arguments) w.u32(x);
  }
  w.doubles(v.scalar_arguments);
}
void get(Reader& r, Variant* v) {
  v->index = r.u64();
  v->config = r.str();
  v->kernel_name_expressions = r.strings();
  v->compile_options = r.strings();
  v->prelude = r.str();
  // Counts are read, then met element by element: a damaged count throws, never allocates.
  v->launches.clear();
  for (uint64_t n = r.u64(); n > 0; --n) {
    Launch& launch = v->launches.emplace_back();
    launch.kernel = r.u64();
    for (uint64_t a = r.u64(); a > 0; --a) launch.arguments.push_back(r.u64());
    for (uint32_t& x : launch.block) x = r.u32();
    for (uint32_t& x : launch.grid) x = r.u32();
    launch.dynamic_shared_bytes = r.u32();
    for (uint64_t a = r.u64(); a > 0; --a) launch.trailing_arguments.push_back(r.u32());
  }
  v->scalar_arguments = r.doubles();
}

}  // namespace gputune::wire

namespace gputune::ipc {

namespace {

// Frames larger than this are a broken stream, not a cubin.
constexpr uint32_t kMaxFrame = 1u << 30;

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Every descriptor but stdio and `keep`: a child holding a sibling's socket would keep that
// sibling from ever seeing end of file.
void close_other_descriptors(int keep) {
  std::vector<int> open;
  if (DIR* dir = opendir("/proc/self/fd")) {
    const int own = dirfd(dir);
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      const int fd = std::atoi(entry->d_name);
      if (fd > 2 && fd != keep && fd != own) open.push_back(fd);
    }
    closedir(dir);
  } else {
    const long max = std::min(sysconf(_SC_OPEN_MAX), 65536L);
    for (int fd = 3; fd < max; ++fd) {
      if (fd != keep) open.push_back(fd);
    }
  }
  for (int fd : open) close(fd);
}

}  // namespace

bool write_frame(int fd, uint32_t type, const std::string& payload) {
  if (payload.size() > kMaxFrame) return false;
  char header[8];
  const uint32_t size = static_cast<uint32_t>(payload.size());
  std::memcpy(header, &type, 4);
  std::memcpy(header + 4, &size, 4);
  return write_all(fd, header, sizeof header) && write_all(fd, payload.data(), payload.size());
}

bool read_frame(int fd, uint32_t* type, std::string* payload) {
  char header[8];
  if (!read_all(fd, header, sizeof header)) return false;
  uint32_t size = 0;
  std::memcpy(type, header, 4);
  std::memcpy(&size, header + 4, 4);
  if (size > kMaxFrame) return false;
  payload->resize(size);
  return read_all(fd, payload->data(), size);
}

std::vector<int> readable(const std::vector<int>& fds, int timeout_ms) {
  std::vector<pollfd> polled;
  for (int fd : fds) polled.push_back({fd, POLLIN, 0});
  std::vector<int> ready;
  if (polled.empty()) {
    if (timeout_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return ready;
  }
  const int n = poll(polled.data(), polled.size(), timeout_ms);
  if (n <= 0) return ready;  // timeout, or EINTR: the caller looks at its stop flag
  for (const pollfd& p : polled) {
    if (p.revents != 0) ready.push_back(p.fd);
  }
  return ready;
}

Child spawn(const std::function<int(int fd)>& body) {
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    throw Error(ErrorCode::kIo, std::string("socketpair: ") + std::strerror(errno));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(sockets[0]);
    close(sockets[1]);
    throw Error(ErrorCode::kIo, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the parent died before prctl took effect
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    close_other_descriptors(sockets[1]);
    int rc = 1;
    try {
      rc = body(sockets[1]);
    } catch (...) {
      rc = 70;
    }
    // _exit: the parent's atexit handlers and unflushed stdio buffers are not the child's.
    _exit(rc);
  }
  close(sockets[1]);
  return {pid, sockets[0]};
}

int kill_child(Child* child) {
  if (child->fd >= 0) close(child->fd);
  child->fd = -1;
  int status = 0;
  if (child->pid > 0) {
    kill(child->pid, SIGKILL);
    while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  child->pid = -1;
  return status;
}

int end_child(Child* child, double grace_s) {
  if (child->fd >= 0) close(child->fd);
  child->fd = -1;
  int status = 0;
  if (child->pid <= 0) return status;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  for (;;) {
    const pid_t done = waitpid(child->pid, &status, WNOHANG);
    if (done == child->pid || (done < 0 && errno != EINTR)) {
      child->pid = -1;
      return status;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return kill_child(child);
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    const char* name = strsignal(signal);
    return "killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : "");
  }
  if (WIFEXITED(wait_status)) return "exit code " + std::to_string(WEXITSTATUS(wait_status));
  return "ended (wait status " + std::to_string(wait_status) + ")";
}

}  // namespace gputune::ipc

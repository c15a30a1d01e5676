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

namespace gputune::ipc {

namespace {

// Frames larger than this are a broken stream, not a cubin.
constexpr uint32_t kMaxFrame = 1u << 30;

template <typename T>
void append_raw(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof value);
}

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

Writer& Writer::u32(uint32_t value) {
  append_raw(&data_, value);
  return *this;
}
Writer& Writer::u64(uint64_t value) {
  append_raw(&data_, value);
  return *this;
}
Writer& Writer::f64(double value) {
  append_raw(&data_, value);
  return *this;
}
Writer& Writer::str(const std::string& value) {
  u64(value.size());
  data_.append(value);
  return *this;
}
Writer& Writer::strings(const std::vector<std::string>& values) {
  u64(values.size());
  for (const auto& v : values) str(v);
  return *this;
}
Writer& Writer::doubles(const std::vector<double>& values) {
  u64(values.size());
  for (double v : values) f64(v);
  return *this;
}

const char* Reader::take(size_t bytes) {
  if (bytes > data_.size() - pos_) {
    throw Error(ErrorCode::kInternal, "a worker process sent a truncated message");
  }
  const char* p = data_.data() + pos_;
  pos_ += bytes;
  return p;
}
uint32_t Reader::u32() {
  uint32_t v;
  std::memcpy(&v, take(sizeof v), sizeof v);
  return v;
}
uint64_t Reader::u64() {
  uint64_t v;
  std::memcpy(&v, take(sizeof v), sizeof v);
  return v;
}
double Reader::f64() {
  double v;
  std::memcpy(&v, take(sizeof v), sizeof v);
  return v;
}
std::string Reader::str() {
  const uint64_t size = u64();
  const char* p = take(size);
  return std::string(p, size);
}
std::vector<std::string> Reader::strings() {
  const uint64_t n = u64();
  std::vector<std::string> out;
  for (uint64_t i = 0; i < n; ++i) out.push_back(str());
  return out;
}
std::vector<double> Reader::doubles() {
  const uint64_t n = u64();
  if (n > (data_.size() - pos_) / sizeof(double)) take(data_.size() + 1);  // throws
  std::vector<double> out;
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i) out.push_back(f64());
  return out;
}

void put(Writer& w, const DeviceInfo& d) {
  w.i64(d.ordinal).str(d.name).str(d.uuid).i64(d.cc_major).i64(d.cc_minor).i64(d.sm_count);
  w.i64(d.l2_bytes).i64(d.memory_bytes).i64(d.driver_version);
  const SmLimits& sm = d.sm_limits;
  w.i64(sm.registers).i64(sm.threads).i64(sm.blocks).i64(sm.shared_bytes);
  w.i64(sm.reserved_shared_bytes_per_block).i64(sm.register_granularity);
}
void get(Reader& r, DeviceInfo* d) {
  d->ordinal = static_cast<int>(r.i64());
  d->name = r.str();
  d->uuid = r.str();
  d->cc_major = static_cast<int>(r.i64());
  d->cc_minor = static_cast<int>(r.i64());
  d->sm_count = static_cast<int>(r.i64());
  d->l2_bytes = r.i64();
  d->memory_bytes = r.i64();
  d->driver_version = static_cast<int>(r.i64());
  SmLimits& sm = d->sm_limits;
  for (int* limit : {&sm.registers, &sm.threads, &sm.blocks, &sm.shared_bytes,
                     &sm.reserved_shared_bytes_per_block, &sm.register_granularity}) {
    *limit = static_cast<int>(r.i64());
  }
}

void put(Writer& w, const CompileRequest& q) {
  w.str(q.source).str(q.source_name).str(q.headers_hash).strings(q.kernel_name_expressions);
  w.strings(q.options).str(q.arch);
}
void get(Reader& r, CompileRequest* q) {
  q->source = r.str();
  q->source_name = r.str();
  q->headers_hash = r.str();
  q->kernel_name_expressions = r.strings();
  q->options = r.strings();
  q->arch = r.str();
}

void put(Writer& w, const CompiledKernel& k) {
  w.u32(k.ok ? 1 : 0).str(k.log).str(k.image).strings(k.lowered_names);
  w.i64(k.registers).i64(k.shared_bytes).i64(k.spill_bytes).f64(k.compile_ms);
  w.u32(k.cached ? 1 : 0);
}
void get(Reader& r, CompiledKernel* k) {
  k->ok = r.u32() != 0;
  k->log = r.str();
  k->image = r.str();
  k->lowered_names = r.strings();
  k->registers = static_cast<int>(r.i64());
  k->shared_bytes = static_cast<int>(r.i64());
  k->spill_bytes = static_cast<int>(r.i64());
  k->compile_ms = r.f64();
  k->cached = r.u32() != 0;
}

void put(Writer& w, const Variant& v) {
  w.u64(v.index).str(v.config).strings(v.kernel_name_expressions).strings(v.compile_options);
  w.str(v.prelude).u64(v.launches.size());
  for (const Launch& launch : v.launches) {
    w.u64(launch.kernel).u64(launch.arguments.size());
    for (size_t a : launch.arguments) w.u64(a);
    for (uint32_t x : launch.block) w.u32(x);
    for (uint32_t x : launch.grid) w.u32(x);
    w.u32(launch.dynamic_shared_bytes);
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
  }
  v->scalar_arguments = r.doubles();
}

// Field by field, in the order of measurement_fields(): both ends are the same build.
void put(Writer& w, const Measurement& m) {
  for (const MeasurementField& field : measurement_fields()) {
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        w.u64(field.of<uint64_t>(m));
        break;
      case FieldKind::kConfig:
      case FieldKind::kText:
        w.str(field.of<std::string>(m));
        break;
      case FieldKind::kStatus:
        w.u32(static_cast<uint32_t>(field.of<Status>(m)));
        break;
      case FieldKind::kSamples:
        w.doubles(field.of<std::vector<double>>(m));
        break;
      case FieldKind::kReal:
        w.f64(field.of<double>(m));
        break;
      case FieldKind::kInteger:
        w.i64(field.of<int>(m));
        break;
    }
  }
}
void get(Reader& r, Measurement* m) {
  for (const MeasurementField& field : measurement_fields()) {
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        field.of<uint64_t>(*m) = r.u64();
        break;
      case FieldKind::kConfig:
      case FieldKind::kText:
        field.of<std::string>(*m) = r.str();
        break;
      case FieldKind::kStatus: {
        const uint32_t status = r.u32();
        if (status > static_cast<uint32_t>(Status::kWrongAnswer)) {
          throw Error(ErrorCode::kInternal, "a worker process sent an unknown status");
        }
        field.of<Status>(*m) = static_cast<Status>(status);
        break;
      }
      case FieldKind::kSamples:
        field.of<std::vector<double>>(*m) = r.doubles();
        break;
      case FieldKind::kReal:
        field.of<double>(*m) = r.f64();
        break;
      case FieldKind::kInteger:
        field.of<int>(*m) = static_cast<int>(r.i64());
        break;
    }
  }
}

void put(Writer& w, const Error& e) { w.u32(static_cast<uint32_t>(e.code())).str(e.what()); }
Error get_error(Reader& r) {
  const uint32_t code = r.u32();
  const std::string message = r.str();
  if (code > static_cast<uint32_t>(ErrorCode::kInternal)) {
    return Error(ErrorCode::kInternal, message);
  }
  return Error(static_cast<ErrorCode>(code), message);
}

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
